// Bundles the pages' browser scripts (TypeScript, type-checked by tsconfig.browser.json) into
// dist/browser, each under a name that carries a hash of its content, and writes the manifest the
// gateway reads at start (src/pages/browser-scripts.ts). Run by `npm run build` and by
// scripts/image-bundle.sh, after tsc.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, 'dist', 'browser');
const entries = {
  dashboard: 'src/dashboard/browser/dashboard.ts',
  'payment-page': 'src/payment-page/browser/payment-page.ts',
};

// Only this build's files: a name of an older build would otherwise stay beside the new one.
fs.rmSync(out, { recursive: true, force: true });
const manifest = {};
for (const [name, entry] of Object.entries(entries)) {
  const result = await build({
    entryPoints: { [name]: path.join(here, entry) },
    bundle: true,
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    outdir: out,
    entryNames: '[name].[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  manifest[name] = path.basename(Object.keys(result.metafile.outputs)[0]);
}
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
