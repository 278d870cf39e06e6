import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';

/**
 * Where the build (build-browser.mjs) writes the pages' scripts, bundled from their browser/
 * folders: dist/browser, beside this module once compiled, so an image carries them.
 */
const BUILT = path.join(__dirname, '..', 'browser');

/** A page's script as the build wrote it. */
export interface BrowserScript {
  /** Its file name, which carries a hash of its content: a new script is a new name. */
  name: string;
  text: string;
}

/** The script of one entry of the build (`dashboard`, `payment-page`); the gateway needs both to start. */
export function browserScript(entry: 'dashboard' | 'payment-page'): BrowserScript {
  const manifestFile = path.join(BUILT, 'manifest.json');
  if (!fs.existsSync(manifestFile)) {
    throw new Error(`${manifestFile} is missing: build the pages' scripts (make build, or npm run build)`);
  }
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, string | undefined>;
  const name = manifest[entry];
  if (!name) throw new Error(`${manifestFile} names no script for ${entry}`);
  return { name, text: fs.readFileSync(path.join(BUILT, name), 'utf8') };
}

/**
 * Serves a script under its hashed name: cached for a year, as the name changes with the content
 * (a page never runs a script of another deploy's).
 */
export function serveScript(script: BrowserScript): RequestHandler {
  return (_req, res) => {
    res.set('Cache-Control', 'public, max-age=31536000, immutable').type('application/javascript').send(script.text);
  };
}
