import fs from 'node:fs';
import path from 'node:path';

/**
 * The check that every relative link in README.md and docs/ resolves inside the repository, run by
 * the unit layer (doc-links.test.ts). Not a workspace package: nothing imports it but its test.
 */

/** A link as written in a markdown file, with the line it is on (1-based). */
export interface DocLink {
  line: number;
  target: string;
}

/** What the check reads: the repository's files, or a test's. */
export interface DocFiles {
  /** The file's text, or null when there is no such file (a folder is not a file). */
  read(file: string): string | null;
  /** Whether a file or folder exists at that path. */
  exists(file: string): boolean;
}

/** Fenced code blocks (``` or ~~~) hold neither links nor headings. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, i) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) lines.push({ text, line: i + 1 });
  });
  return lines;
}

/** Inline code spans hold no links either. */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
}

/**
 * Every link target in the markdown: inline links and images (`[text](target "title")`), reference
 * definitions (`[name]: target`) and HTML `src`/`href` attributes.
 */
export function linksIn(markdown: string): DocLink[] {
  const links: DocLink[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = withoutCodeSpans(text);
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)) links.push({ line, target: m[1]! });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(prose);
    if (definition) links.push({ line, target: definition[1]! });
    for (const m of prose.matchAll(/<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)) {
      links.push({ line, target: m[1]! });
    }
  }
  return links;
}

/** A link that leaves the repository's files: a URL with a scheme (https:, mailto:) or a host. */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/**
 * GitHub's anchor for a heading: its text as shown (code and emphasis marks and link targets
 * dropped), lowercased, every character but letters, digits, spaces, `-` and `_` dropped, each
 * space turned into `-`.
 */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings; a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * What is wrong with the relative links of `files` (paths from `root`): a target outside the
 * repository, a file that does not exist, or an anchor that no heading of the target markdown has.
 * An anchor alone (`#section`) is checked against the file's own headings. One line per problem.
 */
export function brokenLinks(root: string, files: string[], docs: DocFiles): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const markdown = docs.read(path.resolve(root, file));
    if (markdown === null) {
      problems.push(`${file}: no such file`);
      continue;
    }
    for (const { line, target } of linksIn(markdown)) {
      if (isExternal(target)) continue;
      const where = `${file}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      const resolved =
        pathPart === ''
          ? path.resolve(root, file)
          : path.resolve(root, pathPart.startsWith('/') ? `.${pathPart}` : path.join(path.dirname(file), pathPart));
      const inRepo = path.relative(root, resolved);
      if (inRepo.startsWith('..') || path.isAbsolute(inRepo)) {
        problems.push(`${where}: outside the repository`);
        continue;
      }
      if (!docs.exists(resolved)) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor === null || anchor === '' || !resolved.endsWith('.md')) continue;
      const text = docs.read(resolved);
      if (text !== null && !anchorsOf(text).has(anchor)) problems.push(`${where}: no heading with that anchor`);
    }
  }
  return problems;
}

/** README.md and every markdown file under docs/, as paths from `root`. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) files.push(rel);
    }
  };
  walk('docs');
  return files.sort();
}

/** The repository's own files. */
export const repositoryFiles: DocFiles = {
  read: (file) => (fs.existsSync(file) && fs.statSync(file).isFile() ? fs.readFileSync(file, 'utf8') : null),
  exists: (file) => fs.existsSync(file),
};
