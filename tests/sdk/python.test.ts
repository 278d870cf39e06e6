import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, RUN_DIR } from '@pix/devstack';
import { conformanceSetup, runConformanceRunner } from '../support/conformance';
import { sharedStack } from '../support/stack';

const run = promisify(execFile);
const SDK = path.join(ROOT, 'clients/python');
/** The pinned tools `make` installs (scripts/install-python-sdk-tools.sh). */
const TOOLS = path.join(ROOT, '.tools/python-sdk');
const PYTHON = path.join(TOOLS, 'bin/python');
const RUNNER = path.join(SDK, 'conformance_runner.py');

/** A scratch folder under .run/, removed when the test passes (kept to look at when it fails). */
function scratch(prefix: string): string {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  return fs.mkdtempSync(path.join(RUN_DIR, prefix));
}

/**
 * The Python SDK, pix-payments (clients/python): its unit tests, the conformance scenario against
 * the stack through Client and AsyncClient from the source tree, the wheel as it would be published
 * (built, installed into a fresh virtualenv, the scenario played from outside the repository), and
 * its models regenerated from the served OpenAPI document.
 */
describe('the Python SDK, pix-payments', () => {
  const stack = sharedStack();
  const fromSource = { ...process.env, PYTHONPATH: path.join(SDK, 'src') };

  it('passes its unit tests (pytest)', async () => {
    const { stdout } = await run(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], {
      cwd: SDK,
      env: fromSource,
      timeout: 60_000,
    });
    expect(stdout).toMatch(/\d+ passed/);
    expect(stdout).not.toMatch(/failed|error/);
  });

  it.each([
    ['Client', []],
    ['AsyncClient', ['--async']],
  ])(
    'plays the conformance scenario through %s',
    async (kind, flags) => {
      const { env, receiver } = await conformanceSetup(stack, `Conformance Python ${kind}`);
      try {
        const output = await runConformanceRunner(PYTHON, [RUNNER, ...flags], env, {
          env: fromSource,
          timeoutMs: 100_000,
        });
        expect(output).toContain(`passed (${kind})`);
        expect(receiver.received.length).toBeGreaterThanOrEqual(5);
      } finally {
        await receiver.stop();
      }
    },
    120_000,
  );

  it('builds a wheel that installs into a fresh virtualenv and plays the scenario from there', async () => {
    const dir = scratch('sdk-python-');
    await run(PYTHON, ['-m', 'build', '--wheel', '--no-isolation', '--outdir', dir, SDK], {
      cwd: SDK,
      timeout: 60_000,
    });
    const wheels = fs.readdirSync(dir).filter((name) => name.endsWith('.whl'));
    expect(wheels).toEqual(['pix_payments-0.1.0-py3-none-any.whl']);
    // A fresh virtualenv of the machine's Python, the wheel's dependencies from the pinned wheelhouse.
    const venv = path.join(dir, 'venv');
    await run('python3', ['-m', 'venv', venv], { timeout: 60_000 });
    await run(
      path.join(venv, 'bin/pip'),
      [
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-index',
        '--find-links',
        path.join(TOOLS, 'wheels'),
        path.join(dir, wheels[0]!),
      ],
      { timeout: 60_000 },
    );
    // Run from outside the repository with no PYTHONPATH: only the installed package can be imported.
    const outside = path.join(dir, 'merchant');
    fs.mkdirSync(outside);
    fs.copyFileSync(RUNNER, path.join(outside, 'conformance_runner.py'));
    const { PYTHONPATH: _none, ...clean } = process.env;
    const where = await run(
      path.join(venv, 'bin/python'),
      ['-c', 'import pix_payments, pathlib; print(pathlib.Path(pix_payments.__file__).parent)'],
      { cwd: outside, env: clean },
    );
    const installed = where.stdout.trim();
    expect(installed.startsWith(path.join(venv, 'lib'))).toBe(true);
    expect(fs.existsSync(path.join(installed, 'py.typed'))).toBe(true);

    const { env, receiver } = await conformanceSetup(stack, 'Conformance Python wheel');
    try {
      const output = await runConformanceRunner(path.join(venv, 'bin/python'), ['conformance_runner.py'], env, {
        cwd: outside,
        env: clean,
        timeoutMs: 100_000,
      });
      expect(output).toContain('passed (Client)');
    } finally {
      await receiver.stop();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }, 240_000);

  it('has models generated from the served OpenAPI document, unchanged by regeneration', async () => {
    const dir = scratch('sdk-python-models-');
    const out = path.join(dir, 'models.py');
    await run(path.join(SDK, 'scripts/generate.sh'), [`${stack.gatewayUrl}/public-api/v1/openapi.json`, out], {
      timeout: 60_000,
    });
    const committed = fs.readFileSync(path.join(SDK, 'src/pix_payments/models.py'), 'utf8');
    const regenerated = fs.readFileSync(out, 'utf8');
    expect(regenerated).toContain('class Payment(BaseModel)');
    if (regenerated !== committed) {
      throw new Error(
        'clients/python/src/pix_payments/models.py is stale: run `clients/python/scripts/generate.sh ' +
          '<gateway>/public-api/v1/openapi.json` against a stack of this tree and commit the result',
      );
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});
