import { jetStreamAdmin } from '../support/streams';
import { jetstreamManager } from '@nats-io/jetstream';
import mongoose from 'mongoose';
import { Webhook } from 'standardwebhooks';
import {
  Consumers,
  Streams,
  WebhookDeadLetterSchema,
  WebhooksListReplySchema,
  type WebhookDeadLetter,
} from '@pix/contracts';
import { admin } from '../support/admin';
import { api } from '../support/api';
import type { StackInfo } from '@pix/devstack';
import { sharedStack } from '../support/stack';
import type { ReceivedWebhook } from '../support/webhook-receiver';

/** Creates a payment of the store with the given webhookUrl; returns its id. */
export async function createPayment(stack: StackInfo, token: string, webhookUrl: string): Promise<string> {
  const res = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
    token,
    body: { amount: 10, webhookUrl },
  });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Verifies a received webhook as a merchant would, with the standardwebhooks package; throws if invalid. */
export function verify(hook: ReceivedWebhook | undefined, secret: string): unknown {
  if (!hook) throw new Error('no webhook received');
  return new Webhook(secret).verify(hook.body, {
    'webhook-id': String(hook.headers['webhook-id']),
    'webhook-timestamp': String(hook.headers['webhook-timestamp']),
    'webhook-signature': String(hook.headers['webhook-signature']),
  });
}

/** `webhooks list --payment` through the admin CLI. */
export async function deliveriesOf(stack: StackInfo, paymentId: string) {
  return WebhooksListReplySchema.parse(await admin(stack, 'webhooks', 'list', '--payment', paymentId)).deliveries;
}

/** What the dispatcher's JetStream consumer still holds: unacked (pending ack) and undelivered messages. */
export async function dispatcherConsumerBacklog(stack: StackInfo): Promise<{ ackPending: number; pending: number }> {
  const nc = await jetStreamAdmin(stack);
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.consumers.info(Consumers.dispatcherPayments.stream, Consumers.dispatcherPayments.durable);
    return { ackPending: info.num_ack_pending, pending: info.num_pending };
  } finally {
    await nc.close();
  }
}

/** Every message on the dead-letter stream. */
export async function deadLetters(stack: StackInfo): Promise<WebhookDeadLetter[]> {
  const nc = await jetStreamAdmin(stack);
  try {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(Streams.webhookDeadLetters.name);
    const letters: WebhookDeadLetter[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const msg = await jsm.streams.getMessage(Streams.webhookDeadLetters.name, { seq });
      if (msg) letters.push(WebhookDeadLetterSchema.parse(msg.json()));
    }
    return letters;
  } finally {
    await nc.close();
  }
}

/** The value of one sample on a service's /metrics (0 when absent). */
export async function metric(opsUrl: string, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels) && !l.startsWith('#'));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Connects mongoose, for the describe block, to a database of its own on the shared stack's FerretDB. */
export function useOwnDatabase(name: string): void {
  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, `/${name}`));
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });
}
