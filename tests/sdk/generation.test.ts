import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, RUN_DIR } from '@pix/devstack';
import { sharedStack } from '../support/stack';

const run = promisify(execFile);
const SDK = path.join(ROOT, 'clients/sdk');

/**
 * The SDK's types are generated from the OpenAPI document the gateway serves: regenerating them
 * from a running stack's document must change nothing, so the committed types never drift from
 * the API. And the package must load as a merchant's code loads it, from either module system.
 */
describe('the client SDK package', () => {
  it('has types generated from the served OpenAPI document, unchanged by regeneration', async () => {
    fs.mkdirSync(RUN_DIR, { recursive: true });
    const out = path.join(fs.mkdtempSync(path.join(RUN_DIR, 'sdk-')), 'openapi.ts');
    const url = `${sharedStack().gatewayUrl}/public-api/v1/openapi.json`;
    await run(process.execPath, [path.join(SDK, 'scripts/generate.mjs'), url, out], { cwd: SDK });
    const committed = fs.readFileSync(path.join(SDK, 'src/openapi.ts'), 'utf8');
    const regenerated = fs.readFileSync(out, 'utf8');
    expect(regenerated.length).toBeGreaterThan(1000);
    if (regenerated !== committed) {
      throw new Error(
        'clients/sdk/src/openapi.ts is stale: run `node clients/sdk/scripts/generate.mjs ' +
          '<gateway>/public-api/v1/openapi.json` against a stack of this tree and commit the result',
      );
    }
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  });

  it('loads as an ES module and as CommonJS, with the same exports', async () => {
    const names = 'Object.keys(sdk).sort().join(",")';
    const esm = await run(
      process.execPath,
      ['--input-type=module', '-e', `import * as sdk from '@pix-payments/client'; console.log(${names})`],
      { cwd: ROOT },
    );
    const cjs = await run(
      process.execPath,
      ['-e', `const sdk = require('@pix-payments/client'); console.log(${names})`],
      {
        cwd: ROOT,
      },
    );
    expect(esm.stdout.trim()).toBe(
      'PixApiError,PixConnectionError,WebhookVerificationError,createClient,verifyWebhook,webhooks',
    );
    expect(cjs.stdout.trim()).toBe(esm.stdout.trim());
    const manifest = JSON.parse(fs.readFileSync(path.join(SDK, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // Nothing at run time beyond the signature check.
    expect(Object.keys(manifest.dependencies)).toEqual(['standardwebhooks']);
    for (const file of ['dist/esm/index.d.ts', 'dist/cjs/index.d.ts'])
      expect(fs.existsSync(path.join(SDK, file))).toBe(true);
  });
});
