import path from 'node:path';
import { anchorsOf, brokenLinks, documentationFiles, linksIn, repositoryFiles, slug, type DocFiles } from './doc-links';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('README.md and docs/', () => {
  it('link only to files and headings that exist in the repository', () => {
    const files = documentationFiles(ROOT);
    expect(files).toContain('README.md');
    expect(files).toContain(path.join('docs', 'operations.md'));
    expect(brokenLinks(ROOT, files, repositoryFiles)).toEqual([]);
  });
});

describe('the link check', () => {
  /** A repository in memory: path from /repo to text, folders implied by the paths. */
  function memory(files: Record<string, string>): DocFiles {
    const texts = new Map(Object.entries(files).map(([file, text]) => [path.resolve('/repo', file), text]));
    return {
      read: (file) => texts.get(file) ?? null,
      exists: (file) => texts.has(file) || [...texts.keys()].some((known) => known.startsWith(`${file}/`)),
    };
  }

  const repo = memory({
    'README.md': [
      '# Title',
      'See [the API](docs/api.md#errors-and-5xx), [the guide](docs/guide.md), [ok](docs/api.md#sdk).',
      '<img src="docs/missing.png" alt="gone"> and <img src="docs/shot.png" alt="here">',
      '[spec]: ../shared/spec.md',
      '[out](https://example.com/x.md) [mail](mailto:a@b.c) [top](#title) [lost](#nowhere)',
      '```sh',
      'echo "[not a link](nowhere.md)"',
      '```',
      '`[nor this](nowhere.md)` and [a folder](docs/)',
    ].join('\n'),
    'docs/api.md': '# API\n\n## Errors, and `5xx`\n\n## SDK\n',
    'docs/shot.png': '',
  });

  it('reports missing files, missing headings, targets outside the repository and nothing else', () => {
    expect(brokenLinks('/repo', ['README.md'], repo)).toEqual([
      'README.md:2: docs/guide.md: no such file',
      'README.md:3: docs/missing.png: no such file',
      'README.md:4: ../shared/spec.md: outside the repository',
      'README.md:5: #nowhere: no heading with that anchor',
    ]);
  });

  it('reports a link whose heading is gone', () => {
    const renamed = memory({ 'README.md': '[x](api.md#sdk)', 'api.md': '# API\n\n## The SDK\n' });
    expect(brokenLinks('/repo', ['README.md'], renamed)).toEqual([
      'README.md:1: api.md#sdk: no heading with that anchor',
    ]);
  });

  it('finds inline links, images, reference definitions and HTML sources, outside code', () => {
    const targets = linksIn('[a](a.md "title") ![b](b.png)\n[c]: c.md\n<a href="d.md">d</a>\n`[e](e.md)`\n').map(
      (link) => link.target,
    );
    expect(targets).toEqual(['a.md', 'b.png', 'c.md', 'd.md']);
  });

  it("makes GitHub's anchors", () => {
    expect(slug('Payment states (decided here)')).toBe('payment-states-decided-here');
    expect(slug("The PSP's facts")).toBe('the-psps-facts');
    expect(slug('`make bench`: what_it measures')).toBe('make-bench-what_it-measures');
    expect(slug('Ports — and endpoints')).toBe('ports--and-endpoints');
    expect([...anchorsOf('# A\n## Notes\n## Notes\n```\n# not a heading\n```\n')]).toEqual(['a', 'notes', 'notes-1']);
  });
});
