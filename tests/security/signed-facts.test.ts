import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { jetstream, type JsMsg } from '@nats-io/jetstream';
import { headers, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import {
  FactHeaders,
  RefusedFactSchema,
  REFUSED_FACTS_LIST_MAX,
  Streams,
  Subjects,
  txidFor,
  type NatsIdentity,
  type PaymentEvent,
  type RefusedFact,
} from '@pix/contracts';
import { connectAs, type LocalSecrets, type StackNats } from '@pix/devstack';
import { FactSigner, factKeyId } from '@pix/messaging';
import { z } from 'zod';
import { admin, adminFails, createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { statusChangedEvents } from '../support/payments';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';
import { jetStreamAdmin, streamMessages } from '../support/streams';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Money-moving facts are believed only with their producer's signature: a fact on pix.events.* that
 * the adapter did not sign is not applied by payments, and an event on payments.events.* that
 * payments did not sign sends no webhook. Each refused one is kept aside (`admin facts refused`) and
 * counted; the genuine flow goes on, and a genuine fact published again is applied once.
 */
const stack = sharedStack();
const secrets = JSON.parse(fs.readFileSync(stack.secretsFile, 'utf8')) as LocalSecrets;
const publicKeyOf = (base64: string): KeyObject =>
  createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
const adapterKeyId = factKeyId(publicKeyOf(secrets.factKeys['pix-provider-adapter'].publicKey));
const paymentsKeyId = factKeyId(publicKeyOf(secrets.factKeys.payments.publicKey));
/** A key nobody configured: what a service without the producer's key could sign with. */
const stranger = new FactSigner(generateKeyPairSync('ed25519').privateKey);

const open: NatsConnection[] = [];
async function as(identity: NatsIdentity): Promise<NatsConnection> {
  const nc = await connectAs(stack.natsUrl, identity, stack.natsCredentials);
  open.push(nc);
  return nc;
}
const receiver = new WebhookReceiver();
let webhookUrl: string;
let token: string;
beforeAll(async () => {
  webhookUrl = await receiver.start();
  ({ token } = await createStore(stack, 'Signed facts store'));
});
afterAll(async () => {
  await Promise.all(open.map((nc) => nc.close()));
  await receiver.stop();
});

const RefusedListSchema = z.object({
  payments: z.array(RefusedFactSchema),
  'webhook-dispatcher': z.array(RefusedFactSchema),
});
/** The refused facts of one service with these message ids, once all of them are kept aside. */
async function refusedOf(
  service: 'payments' | 'webhook-dispatcher',
  msgIds: string[],
  on: StackNats = stack,
): Promise<RefusedFact[]> {
  return eventually(
    async () => {
      const listed = RefusedListSchema.parse(await admin(on, 'facts', 'refused', '--limit', '200'));
      return listed[service].filter((fact) => fact.msgId !== null && msgIds.includes(fact.msgId));
    },
    (found) => found.length === msgIds.length,
  );
}

/** The refused-facts counter of a service, for one stream and reason (0 before the first). */
async function refusedCount(
  service: 'payments' | 'webhook-dispatcher' | 'gateway',
  stream: string,
  reason: string,
): Promise<number> {
  const text = await (await fetch(`${stack.opsUrls[service]}/metrics`)).text();
  const labels = [`stream="${stream}"`, `reason="${reason}"`];
  const line = text
    .split('\n')
    .find((l) => l.startsWith('bus_facts_refused_total{') && labels.every((label) => l.includes(label)));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Publishes bytes on a stream's subject as an identity that may, signed as `sign` says. */
async function publishFact(
  nc: NatsConnection,
  subject: string,
  msgId: string,
  payload: unknown,
  sign: (hdrs: MsgHdrs, bytes: Uint8Array) => void = () => undefined,
): Promise<void> {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  const hdrs = headers();
  sign(hdrs, bytes);
  const ack = await jetstream(nc).publish(subject, bytes, { msgID: msgId, headers: hdrs });
  expect(ack.duplicate).toBe(false);
}

/** Three forgeries of a fact: unsigned, signed by a stranger's key, and a stranger's signature under the producer's key id. */
function forgeries(subject: string, producerKeyId: string) {
  return [
    { reason: 'unsigned', sign: () => undefined },
    {
      reason: 'unknown_key',
      sign: (hdrs: MsgHdrs, bytes: Uint8Array, msgId: string) => stranger.sign(hdrs, subject, msgId, bytes),
    },
    {
      reason: 'bad_signature',
      sign: (hdrs: MsgHdrs, bytes: Uint8Array, msgId: string) => {
        stranger.sign(hdrs, subject, msgId, bytes);
        hdrs.set(FactHeaders.keyId, producerKeyId);
      },
    },
  ] as const;
}

/** The message stored on a stream under a message id, with its headers (read as JetStream's administrator). */
async function storedFact(stream: string, subject: string, msgId: string): Promise<JsMsg> {
  const nc = await jetStreamAdmin(stack);
  open.push(nc);
  const consumer = await jetstream(nc).consumers.get(stream, { filter_subjects: [subject] });
  return eventually(
    async () => {
      const messages = await consumer.fetch({ max_messages: 1000, expires: 2000 });
      for await (const msg of messages) if (msg.headers?.get('Nats-Msg-Id') === msgId) return msg;
      return null;
    },
    (msg): msg is JsMsg => msg !== null,
  ) as Promise<JsMsg>;
}

/** Publishes a stored message again exactly as it is (subject, headers with its signature, bytes). */
async function replay(nc: NatsConnection, msg: JsMsg): Promise<boolean> {
  const hdrs = headers();
  for (const key of msg.headers?.keys() ?? []) hdrs.set(key, msg.headers?.get(key) ?? '');
  const ack = await jetstream(nc).publish(msg.subject, msg.data, {
    msgID: msg.headers?.get('Nats-Msg-Id'),
    headers: hdrs,
  });
  return ack.duplicate;
}

async function createPayment(amount: number, withWebhook = false): Promise<string> {
  const res = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
    token,
    body: { amount, ...(withWebhook && { webhookUrl }) },
  });
  expect(res.status).toBe(200);
  return res.body.id;
}
const statusOf = async (id: string) =>
  (await api<{ status: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, { token })).body.status;

describe('PSP facts (pix.events.*), as payments applies them', () => {
  it('applies none the adapter did not sign: each is kept aside and counted, and the payment stays pending', async () => {
    const paymentId = await createPayment(25);
    const adapter = await as('pix-provider-adapter');
    const before = await Promise.all(
      ['unsigned', 'unknown_key', 'bad_signature'].map((reason) => refusedCount('payments', Streams.pix.name, reason)),
    );
    const stamp = Date.now();
    const forged = forgeries(Subjects.pixPaid, adapterKeyId).map((forgery, i) => ({
      ...forgery,
      msgId: `E00000000${stamp}forged${i}`,
    }));
    for (const { msgId, sign } of forged) {
      const fact = { endToEndId: msgId, txid: txidFor(paymentId), amountCents: 2500, paidAt: new Date().toISOString() };
      await publishFact(adapter, Subjects.pixPaid, msgId, fact, (hdrs, bytes) => sign(hdrs, bytes, msgId));
    }

    const refused = await refusedOf(
      'payments',
      forged.map((f) => f.msgId),
    );
    expect(refused.map((fact) => [fact.msgId, fact.reason, fact.subject, fact.stream])).toEqual(
      expect.arrayContaining(forged.map((f) => [f.msgId, f.reason, Subjects.pixPaid, Streams.pix.name])),
    );
    expect(refused.find((fact) => fact.reason === 'bad_signature')?.keyId).toBe(adapterKeyId);
    expect(refused.find((fact) => fact.reason === 'unsigned')?.payload).toContain(txidFor(paymentId));
    const after = await Promise.all(
      ['unsigned', 'unknown_key', 'bad_signature'].map((reason) => refusedCount('payments', Streams.pix.name, reason)),
    );
    expect(after.map((n, i) => n - (before[i] ?? 0))).toEqual([1, 1, 1]);
    // Kept aside means handled: nothing of them is left for payments' consumer to apply later.
    expect(await statusOf(paymentId)).toBe('pending');
  });

  it('applies a genuine fact once, however often it is published again', async () => {
    const paymentId = await createPayment(12.5);
    const paid = await admin<{ endToEndId: string }>(stack, 'sandbox', 'pay', paymentId);
    await eventually(
      () => statusOf(paymentId),
      (status) => status === 'approved',
    );
    const genuine = await storedFact(Streams.pix.name, Subjects.pixPaid, paid.endToEndId);
    expect(genuine.headers?.get(FactHeaders.keyId)).toBe(adapterKeyId);

    const adapter = await as('pix-provider-adapter');
    // The same message again: JetStream keeps one (its id) and payments applied it already.
    expect(await replay(adapter, genuine)).toBe(true);
    // Its bytes and signature under another id, or on another subject: not the adapter's fact.
    const hdrs = headers();
    for (const key of genuine.headers?.keys() ?? []) hdrs.set(key, genuine.headers?.get(key) ?? '');
    const renamed = `${paid.endToEndId}-again`;
    await jetstream(adapter).publish(Subjects.pixPaid, genuine.data, { msgID: renamed, headers: hdrs });
    const moved = `${paid.endToEndId}:moved`;
    await jetstream(adapter).publish(Subjects.pixReview, genuine.data, { msgID: moved, headers: hdrs });
    const refused = await refusedOf('payments', [renamed, moved]);
    expect(refused.map((fact) => fact.reason)).toEqual(['bad_signature', 'bad_signature']);

    const changes = await statusChangedEvents(stack, paymentId, 1);
    expect(changes.map((change) => change.data.body.status)).toEqual(['approved']);
    expect(await statusOf(paymentId)).toBe('approved');
  });
});

describe('admin facts refused', () => {
  it('refuses a --limit past what one listing returns on the command line, with the bound', async () => {
    const refused = await adminFails(stack, 'facts', 'refused', '--limit', String(REFUSED_FACTS_LIST_MAX + 1));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`must be at most ${REFUSED_FACTS_LIST_MAX}`);
    const listed = RefusedListSchema.parse(
      await admin(stack, 'facts', 'refused', '--limit', String(REFUSED_FACTS_LIST_MAX)),
    );
    expect(Object.keys(listed).sort()).toEqual(['payments', 'webhook-dispatcher']);
  });
});

describe('payment events (payments.events.*), as the dispatcher sends them', () => {
  it('sends no webhook for an event payments did not sign, keeps it aside and counts it; the genuine ones go out once', async () => {
    const paymentId = await createPayment(30, true);
    const created = await eventually(
      async () => receiver.events(paymentId, 'payment.created'),
      (hooks) => hooks.length === 1,
    );
    const genuineId = String(created[0]?.headers['webhook-id']);
    const genuine = await storedFact(Streams.payments.name, Subjects.paymentEvent('payment.created', true), genuineId);
    expect(genuine.headers?.get(FactHeaders.keyId)).toBe(paymentsKeyId);

    // What a forger would say: the payment approved, with its real envelope (store, webhookUrl).
    const envelope = genuine.json<PaymentEvent>();
    const subject = Subjects.paymentEvent('payment.status_changed', true);
    const before = await Promise.all(
      ['unsigned', 'unknown_key', 'bad_signature'].map((reason) =>
        refusedCount('webhook-dispatcher', Streams.payments.name, reason),
      ),
    );
    const payments = await as('payments');
    const forged = forgeries(subject, paymentsKeyId).map((forgery, i) => ({
      ...forgery,
      msgId: `evt_forged${Date.now()}${i}`,
    }));
    for (const { msgId, sign } of forged) {
      const event = {
        ...envelope,
        eventId: msgId,
        sequence: 2,
        body: { ...envelope.body, event: 'payment.status_changed', status: 'approved', previousStatus: 'pending' },
      };
      await publishFact(payments, subject, msgId, event, (hdrs, bytes) => sign(hdrs, bytes, msgId));
    }
    const refused = await refusedOf(
      'webhook-dispatcher',
      forged.map((f) => f.msgId),
    );
    expect(refused.map((fact) => [fact.msgId, fact.reason])).toEqual(
      expect.arrayContaining(forged.map((f) => [f.msgId, f.reason])),
    );
    const after = await Promise.all(
      ['unsigned', 'unknown_key', 'bad_signature'].map((reason) =>
        refusedCount('webhook-dispatcher', Streams.payments.name, reason),
      ),
    );
    expect(after.map((n, i) => n - (before[i] ?? 0))).toEqual([1, 1, 1]);

    // The genuine event published again is the same message: JetStream keeps one, one webhook went.
    expect(await replay(payments, genuine)).toBe(true);
    // A genuine change after the forgeries goes out: the dispatcher was not held up by them.
    const cancelled = await api(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${paymentId}/cancel`, { token });
    expect(cancelled.status).toBe(200);
    const changes = await eventually(
      async () => receiver.events(paymentId, 'payment.status_changed'),
      (hooks) => hooks.length >= 1,
    );
    expect(changes.map((hook) => hook.json.status)).toEqual(['not_approved']);
    expect(receiver.events(paymentId, 'payment.created')).toHaveLength(1);
  });
});

describe('payment events on the live payment page (the gateway)', () => {
  /** A page's status stream: each call reads on until an update of `phase`, and answers every update so far. */
  function pageUpdates(body: ReadableStream<Uint8Array>) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    return async (phase: string): Promise<string[]> => {
      for (;;) {
        const phases = [...text.matchAll(/event: status\ndata: (.*)\n\n/g)].map(
          (m) => (JSON.parse(m[1] ?? '') as { phase: string }).phase,
        );
        if (phases.includes(phase)) return phases;
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`stream ended: ${text}`);
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
  }

  it('shows no event payments did not sign, and counts it', async () => {
    const paymentId = await createPayment(40);
    const [created] = await eventually(
      async () =>
        (
          await streamMessages<PaymentEvent>(
            stack,
            Streams.payments.name,
            Subjects.paymentEventsOfType('payment.created'),
          )
        ).filter((m) => m.data.paymentId === paymentId),
      (found) => found.length === 1,
    );
    const controller = new AbortController();
    const res = await fetch(`${stack.gatewayUrl}/pay/${paymentId}/events`, { signal: controller.signal });
    try {
      const until = pageUpdates(res.body as ReadableStream<Uint8Array>);
      // The first update comes once the gateway follows PAYMENTS: the forgery is published after it.
      expect(await until('pending')).toEqual(['pending']);
      const before = await refusedCount('gateway', Streams.payments.name, 'unsigned');
      const msgId = `evt_forged_page${Date.now()}`;
      const envelope = created!.data;
      await publishFact(await as('payments'), Subjects.paymentEvent('payment.status_changed', false), msgId, {
        ...envelope,
        eventId: msgId,
        sequence: 2,
        body: { ...envelope.body, event: 'payment.status_changed', status: 'approved', previousStatus: 'pending' },
      });
      await eventually(
        () => refusedCount('gateway', Streams.payments.name, 'unsigned'),
        (n) => n === before + 1,
      );
      const cancelled = await api(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${paymentId}/cancel`, { token });
      expect(cancelled.status).toBe(200);
      expect(await until('cancelled')).toEqual(['pending', 'cancelled']);
    } finally {
      controller.abort();
    }
  });
});

describe('a key rotation done out of order', () => {
  // Payments holds a key the adapter does not sign with: every genuine PSP fact is refused.
  const strangerPublic = generateKeyPairSync('ed25519')
    .publicKey.export({ format: 'der', type: 'spki' })
    .toString('base64');
  let own: PrivateStack;
  beforeAll(async () => {
    own = await startPrivateStack({ env: { PIX_FACTS_PUBLIC_KEYS: strangerPublic } });
  }, 180_000);
  afterAll(() => own?.stop());

  it('loses no genuine fact: kept while refused, applied once payments holds the key (facts reapply)', async () => {
    const store = await createStore(own, 'Rotation store');
    const created = await api<{ id: string }>(own.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 18 },
    });
    const paymentId = created.body.id;
    const paid = await admin<{ endToEndId: string }>(own, 'sandbox', 'pay', paymentId);
    const [refused] = await refusedOf('payments', [paid.endToEndId], own);
    expect(refused).toMatchObject({ reason: 'unknown_key', keyId: adapterKeyId, subject: Subjects.pixPaid });
    const statusHere = async () =>
      (
        await api<{ status: string }>(own.gatewayUrl, 'GET', `/public-api/v1/payments/${paymentId}`, {
          token: store.token,
        })
      ).body.status;
    expect(await statusHere()).toBe('pending');

    // The operator adds the adapter's key to payments' set and rolls payments, then reapplies.
    for (const old of own.processesOf('payments')) await own.stopProcess(old);
    await own.startService('payments', {
      PIX_FACTS_PUBLIC_KEYS: `${strangerPublic},${secrets.factKeys['pix-provider-adapter'].publicKey}`,
    });
    const reapplied = await admin<Record<string, { applied: number; refused: number }>>(own, 'facts', 'reapply');
    expect(reapplied.payments).toEqual({ applied: 1, refused: 0 });
    expect(await statusHere()).toBe('approved');
    const again = await admin<Record<string, { applied: number; refused: number }>>(own, 'facts', 'reapply');
    expect(again.payments).toEqual({ applied: 0, refused: 0 });
    expect((await statusChangedEvents(own, paymentId, 1)).map((change) => change.data.body.status)).toEqual([
      'approved',
    ]);
  });
});
