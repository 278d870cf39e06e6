import { AdapterRpc } from '@pix/contracts';
import { admin, createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { OtlpReceiver, SpanKinds, type ReceivedSpan } from '../support/otlp-receiver';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

const ALL_SERVICES = ['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher'];

/** The services a lineage passes through, nearest first, each once per stretch. */
function hops(chain: ReceivedSpan[]): string[] {
  return chain.map((s) => s.service).filter((service, i, all) => i === 0 || all[i - 1] !== service);
}

/**
 * One trace per flow across all four services: the create (HTTP -> gateway -> payments -> adapter,
 * and payments' outbox -> dispatcher -> the merchant's webhook) and the sandbox payment (adapter ->
 * its PSP callback -> payments -> dispatcher -> webhook), exported over OTLP/HTTP to a receiver of
 * the test's own.
 */
describe('tracing across hops', () => {
  const otlp = new OtlpReceiver();
  const webhooks = new WebhookReceiver();
  let stack: PrivateStack;
  let webhookUrl: string;

  beforeAll(async () => {
    const endpoint = await otlp.start();
    webhookUrl = await webhooks.start();
    stack = await startPrivateStack({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([otlp.stop(), webhooks.stop()]);
  });

  /** The lineage of the first span `find` picks, once every ancestor up to the root has arrived. */
  async function lineageOf(find: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan[]> {
    return eventually(
      async () => {
        const span = otlp.spans.find(find);
        return span ? otlp.lineage(span) : [];
      },
      (chain) => chain.length > 0 && chain.at(-1)?.parentSpanId === undefined,
    );
  }

  /** The dispatcher's outgoing POST of one webhook (the traceparent it sent names its span). */
  async function webhookRequestLineage(paymentId: string, event: string): Promise<ReceivedSpan[]> {
    const hook = (await eventually(
      async () => webhooks.events(paymentId, event)[0],
      (found) => found !== undefined,
    ))!;
    const [, traceId, spanId] = String(hook.headers.traceparent ?? '').split('-');
    return lineageOf((s) => s.traceId === traceId && s.spanId === spanId);
  }

  it('gives a create and a sandbox payment one trace each, parented hop by hop', async () => {
    const store = await createStore(stack, 'Traced store');
    const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 12.34, webhookUrl },
    });
    expect(created.status).toBe(200);
    const paymentId = created.body.id;

    // Create: gateway -> payments -> adapter.
    const chargeLineage = await lineageOf(
      (s) => s.service === 'pix-provider-adapter' && s.name === `${AdapterRpc.createCharge.subject} process`,
    );
    expect(chargeLineage[0]?.kind).toBe(SpanKinds.server);
    expect(hops(chargeLineage)).toEqual(['pix-provider-adapter', 'payments', 'gateway']);
    const root = chargeLineage.at(-1)!;
    expect(root).toMatchObject({ service: 'gateway', kind: SpanKinds.server, parentSpanId: undefined });
    expect(chargeLineage.map((s) => s.kind)).toContain(SpanKinds.client);

    // ... and payments -> dispatcher -> the outgoing webhook request, in the same trace.
    const createdHookLineage = await webhookRequestLineage(paymentId, 'payment.created');
    expect(createdHookLineage[0]).toMatchObject({
      service: 'webhook-dispatcher',
      kind: SpanKinds.client,
      traceId: root.traceId,
    });
    expect(hops(createdHookLineage)).toEqual(['webhook-dispatcher', 'payments', 'gateway']);
    expect(createdHookLineage.at(-1)?.spanId).toBe(root.spanId);
    expect(
      createdHookLineage.find((s) => s.service === 'webhook-dispatcher' && s.kind === SpanKinds.consumer),
    ).toBeDefined();
    expect(createdHookLineage.find((s) => s.service === 'payments' && s.kind === SpanKinds.producer)).toBeDefined();

    // Sandbox payment: the PSP simulator's callback, as a real PSP's, carries no trace context of
    // ours, so it begins a trace of its own: adapter (callback) -> payments -> dispatcher -> webhook.
    await admin(stack, 'sandbox', 'pay', paymentId);
    const changedLineage = await webhookRequestLineage(paymentId, 'payment.status_changed');
    const changedTraceId = changedLineage[0]?.traceId;
    expect(changedTraceId).not.toBe(root.traceId);
    expect(hops(changedLineage)).toEqual(['webhook-dispatcher', 'payments', 'pix-provider-adapter']);
    expect(changedLineage.at(-1)).toMatchObject({
      service: 'pix-provider-adapter',
      name: 'POST /psp/callbacks/pix',
      kind: SpanKinds.server,
      parentSpanId: undefined,
    });
    expect(changedLineage.find((s) => s.service === 'payments' && s.kind === SpanKinds.consumer)).toBeDefined();
    expect(
      changedLineage.find((s) => s.service === 'pix-provider-adapter' && s.kind === SpanKinds.producer),
    ).toBeDefined();

    // Inside the create: express in the gateway, the database in payments.
    const createSpans = otlp.spans.filter((s) => s.traceId === root.traceId);
    expect(createSpans.some((s) => s.service === 'gateway' && s.attributes['express.type'] === 'request_handler')).toBe(
      true,
    );
    expect(createSpans.some((s) => s.service === 'payments' && s.attributes['db.system.name'] === 'mongodb')).toBe(
      true,
    );

    // Every service took part in the create (the dispatcher asked the gateway for the store's
    // secrets); the sandbox payment's delivery used the secrets the dispatcher had cached.
    for (const [traceId, services] of [
      [root.traceId, ALL_SERVICES],
      [changedTraceId, ALL_SERVICES.filter((service) => service !== 'gateway')],
    ] as const) {
      await eventually(
        async () => new Set(otlp.spans.filter((s) => s.traceId === traceId).map((s) => s.service)),
        (seen) => services.every((service) => seen.has(service)),
      );
    }
  });
});
