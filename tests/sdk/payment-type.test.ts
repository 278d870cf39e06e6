import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, RUN_DIR } from '@pix/devstack';

const run = promisify(execFile);
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const CHECK = path.join(ROOT, 'tests/sdk/payment-type.check.ts');
const SDK_SRC = path.join(ROOT, 'clients/sdk/src');

/**
 * Compiles payment-type.check.ts against a copy of the SDK's sources whose generated types were
 * edited as a changed OpenAPI document would change them; null when it compiles, else tsc's output.
 */
async function compileWith(edit: (generated: string) => string): Promise<string | null> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const dir = fs.mkdtempSync(path.join(RUN_DIR, 'sdk-types-'));
  try {
    fs.cpSync(SDK_SRC, path.join(dir, 'sdk'), { recursive: true });
    const generated = path.join(dir, 'sdk/openapi.ts');
    fs.writeFileSync(generated, edit(fs.readFileSync(generated, 'utf8')));
    fs.writeFileSync(
      path.join(dir, 'check.ts'),
      fs.readFileSync(CHECK, 'utf8').replace("from '@pix-payments/client'", "from './sdk/index.js'"),
    );
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: path.join(ROOT, 'tsconfig.base.json'),
        compilerOptions: {
          noEmit: true,
          composite: false,
          incremental: false,
          declaration: false,
          declarationMap: false,
        },
        files: ['check.ts'],
      }),
    );
    await run(process.execPath, [TSC, '-p', path.join(dir, 'tsconfig.json')]);
    return null;
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The Payment's block in the generated components. */
function inPayment(generated: string, from: string, to: string): string {
  const start = generated.indexOf('        Payment: {');
  const end = generated.indexOf('        };', start);
  if (start < 0 || !generated.slice(start, end).includes(from)) throw new Error(`no ${from} in the Payment`);
  return generated.slice(0, start) + generated.slice(start, end).replace(from, to) + generated.slice(end);
}

describe('the SDK types', () => {
  it('compile as generated', async () => {
    expect(await compileWith((generated) => generated)).toBeNull();
  });

  it.each([
    ['a field changes type', 'amount: number;', 'amount: string;'],
    ['a field is renamed', 'qrCopyPaste: string | null;', 'pixCode: string | null;'],
    ['a field becomes optional', 'isPublic: boolean;', 'isPublic?: boolean;'],
  ])('fail to compile when %s in the Payment', async (_case, from, to) => {
    const errors = await compileWith((generated) => inPayment(generated, from, to));
    expect(errors).toMatch(/check\.ts\(\d+,\d+\): error TS/);
  });
});
