import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@pix/devstack';
import { conformanceSetup, runConformanceRunner, type ConformanceEnv } from '../support/conformance';
import { sharedStack } from '../support/stack';
import type { WebhookReceiver } from '../support/webhook-receiver';

const run = promisify(execFile);
const PHP_PACKAGE = path.join(ROOT, 'clients/php');

/**
 * The PHP SDK plays clients/conformance against the stack, as the TypeScript and Python SDKs do,
 * from a copy of clients/php outside the repository: the runner loads the package with only
 * `require 'autoload.php'`, as a merchant without Composer would, so a file the package needs but
 * does not ship (or an autoload that only works in place) fails here.
 */
describe('the conformance scenario through the PHP SDK, as installed elsewhere', () => {
  let env: ConformanceEnv;
  let receiver: WebhookReceiver;
  let copy: string;

  beforeAll(async () => {
    ({ env, receiver } = await conformanceSetup(sharedStack(), 'Conformance PHP'));
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-payments-php-'));
    // What a Composer archive ships (clients/php/.gitattributes leaves the tests out), plus the runner.
    fs.cpSync(PHP_PACKAGE, copy, {
      recursive: true,
      filter: (source) => !['tests', 'phpunit.xml.dist'].includes(path.relative(PHP_PACKAGE, source)),
    });
  });
  afterAll(async () => {
    fs.rmSync(copy, { recursive: true, force: true });
    await receiver.stop();
  });

  it('passes every step and every webhook case', async () => {
    expect(path.relative(ROOT, copy).startsWith('..')).toBe(true);
    expect(fs.readdirSync(copy).sort()).toEqual([
      '.gitattributes',
      'README.md',
      'autoload.php',
      'composer.json',
      'conformance',
      'src',
    ]);
    const output = await runConformanceRunner('php', [path.join(copy, 'conformance/run.php')], env, {
      cwd: copy,
      timeoutMs: 100_000,
    });
    const lines = output.trim().split('\n');
    const read = (file: string) => JSON.parse(fs.readFileSync(path.join(env.PIX_CONFORMANCE_DIR, file), 'utf8'));
    const names = [
      ...read('scenario.json').steps.map((s: { name: string }) => `ok ${s.name}`),
      ...read('webhooks.json').cases.map((c: { name: string }) => `ok webhook: ${c.name}`),
    ];
    expect(lines).toEqual(names);
    // The scenario's webhookUrl is the receiver: its payment's events (and the redelivery) reached it.
    expect(receiver.received.length).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('fails a step whose expected answer differs, naming it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-conformance-'));
    try {
      const scenario = JSON.parse(fs.readFileSync(path.join(env.PIX_CONFORMANCE_DIR, 'scenario.json'), 'utf8'));
      const step = scenario.steps.find((s: { error?: { status: number } }) => s.error?.status === 404);
      step.error.message = 'Pagamento inexistente.';
      fs.writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify({ ...scenario, steps: [step] }));
      fs.copyFileSync(path.join(env.PIX_CONFORMANCE_DIR, 'webhooks.json'), path.join(dir, 'webhooks.json'));
      const failed = await run('php', [path.join(copy, 'conformance/run.php')], {
        env: { ...process.env, ...env, PIX_CONFORMANCE_DIR: dir },
        timeout: 30_000,
      }).catch((err: { code: number; stdout: string }) => err);
      expect(failed).toMatchObject({
        code: 1,
        stdout: `FAIL ${step.name}: error $.message: expected "Pagamento inexistente.", got "Pagamento não encontrado."\n`,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
