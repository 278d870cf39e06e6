import fs from 'node:fs';
import path from 'node:path';
import { conformanceSetup, type ConformanceEnv } from '../support/conformance';
import { sharedStack } from '../support/stack';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { playConformance } from './conformance-runner';

/**
 * The TypeScript SDK plays clients/conformance against the stack, as the Python and PHP SDKs do
 * (tests/sdk/python.test.ts), so the three cannot drift from the API or from each other.
 */
describe('the conformance scenario through @pix-payments/client', () => {
  let env: ConformanceEnv;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ({ env, receiver } = await conformanceSetup(sharedStack(), 'Conformance TypeScript'));
  });
  afterAll(() => receiver.stop());

  it('passes every step and every webhook case', async () => {
    const lines: string[] = [];
    await playConformance(env, (line) => lines.push(line));
    // Every webhook the scenario caused reached the receiver: creates, status changes, refunds, the redelivery.
    expect(receiver.received.length).toBeGreaterThanOrEqual(5);
    const scenario = JSON.parse(fs.readFileSync(path.join(env.PIX_CONFORMANCE_DIR, 'scenario.json'), 'utf8'));
    const hooks = JSON.parse(fs.readFileSync(path.join(env.PIX_CONFORMANCE_DIR, 'webhooks.json'), 'utf8'));
    expect(lines).toHaveLength(scenario.steps.length + hooks.cases.length);
  }, 120_000);
});
