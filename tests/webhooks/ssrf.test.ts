import { createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deadLetters, deliveriesOf, metric } from './helpers';

/**
 * The SSRF guard through a whole stack run as in production: WEBHOOK_ALLOW_PRIVATE_TARGETS off.
 * Every refused target is one failed attempt with its reason, dead-lettered, never retried. (The
 * other webhook tests run with the flag on, as `make up` does, and deliver to loopback.)
 */
describe('webhook SSRF guard (private targets not allowed)', () => {
  let stack: PrivateStack;
  let store: StoreCredentials;
  const receiver = new WebhookReceiver();
  let loopbackUrl: string;

  beforeAll(async () => {
    loopbackUrl = await receiver.start();
    stack = await startPrivateStack({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_RETRY_SCHEDULE: '0s,200ms,200ms', WEBHOOK_TIMEOUT: '2s' },
    });
    store = await createStore(stack, 'SSRF store');
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  const port = () => new URL(loopbackUrl).port;
  const targets: [string, () => string, RegExp][] = [
    ['loopback IPv4', () => loopbackUrl, /127\.0\.0\.1 is a loopback address/],
    ['a name resolving to loopback', () => `http://localhost:${port()}/hooks`, /localhost resolves to .*loopback/],
    ['loopback IPv6', () => `http://[::1]:${port()}/hooks`, /::1 is a loopback address/],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}/hooks`, /loopback address/],
    ['private 10/8', () => 'http://10.0.0.1/hooks', /private address/],
    ['private 192.168/16', () => 'http://192.168.0.10:8080/hooks', /private address/],
    ['link-local', () => 'http://169.254.10.1/hooks', /linkLocal address/],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data', /cloud metadata address/],
    ['cloud metadata IPv6', () => 'http://[fd00:ec2::254]/latest/meta-data', /cloud metadata address/],
    ['CGNAT', () => 'http://100.64.1.1/hooks', /carrierGradeNat address/],
    ['multicast', () => 'http://224.0.0.251/hooks', /multicast address/],
    ['unspecified', () => 'http://0.0.0.0:80/hooks', /unspecified address/],
    ['IPv6 unique-local', () => 'http://[fd12:3456::1]/hooks', /uniqueLocal address/],
    ['IPv6 link-local', () => 'http://[fe80::1]/hooks', /linkLocal address/],
  ];

  it.each(targets)('refuses %s, once, and dead-letters it with the reason', async (_name, url, reason) => {
    const refusedBefore = await metric(
      stack.opsUrls['webhook-dispatcher'],
      'webhook_deliveries_total',
      'outcome="refused"',
    );
    const id = await createPayment(stack, store.token, url());
    const [delivery] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'dead',
    );
    expect(delivery?.attempts).toHaveLength(1);
    expect(delivery?.attempts[0]).toMatchObject({ outcome: 'refused', statusCode: null });
    expect(delivery?.attempts[0]?.error).toMatch(reason);
    const letter = await eventually(
      async () => (await deadLetters(stack)).find((l) => l.paymentId === id),
      (l) => l !== undefined,
    );
    expect(letter).toMatchObject({ reason: 'refused', attempts: 1 });
    expect(letter?.lastError).toMatch(reason);
    expect(await metric(stack.opsUrls['webhook-dispatcher'], 'webhook_deliveries_total', 'outcome="refused"')).toBe(
      refusedBefore + 1,
    );
  });

  it('never reached the loopback receiver', () => {
    expect(receiver.received).toHaveLength(0);
  });
});
