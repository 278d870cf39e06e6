import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { PaymentViewsBucket, type PaymentView } from '@pix/contracts';
import { jetstream, retrySetup } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { paymentViewWrites } from './metrics';
import type { OutboxMessage, PaymentDoc } from './model';
import { isLive } from './payment-storage';
import { toPayment } from './presenter';

/** How long a writer waits for the bucket: as long as for the rest of what its write owes (outbox.ts). */
const WRITE_TIMEOUT_MS = 2000;
/** Writers of one payment's view racing: each loss means another view landed, so this bounds work, not time. */
const MAX_TRIES = 20;
/**
 * How many keys' last writes a writer remembers: the payments changed in the last few minutes at
 * the rates measured, which is when their next change (a confirmation, an expiry) mostly comes.
 */
const REMEMBERED_KEYS = 10_000;

/**
 * What a write owes its payment's read model: a marker in its outbox, stored by the write's own
 * command, so the view is written after the write whatever happens to the writer. None for a
 * payment whose ids cannot make a key (no store id today): it is read from the database.
 */
export function viewOwed(doc: Pick<PaymentDoc, '_id' | 'storeId' | 'livemode' | 'rev'>): OutboxMessage[] {
  const key = PaymentViewsBucket.key(doc.storeId, isLive(doc), doc._id);
  if (key === undefined) return [];
  return [{ subject: `$KV.${PaymentViewsBucket.name}.${key}`, msgId: `view:${doc._id}:${doc.rev}`, view: true }];
}

/** The JetStream answer to a write conditional on a key's last revision when another came first. */
function lostTheRace(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Writes payments' read model (docs/decisions/payment-read-model.md): each payment's view in the
 * PAYMENT_VIEWS bucket, as a write's owed messages are published (payment-store.ts), so before
 * its events and before the request or the message that made the write is answered. A view
 * carries the payment's revision, and is written compare-and-set on the key's last revision: a
 * view of an older revision (a writer that was overtaken, an outbox published again by the relay
 * or by PublishRetry) never replaces a newer one, whatever order they arrive in.
 */
export class PaymentViewWriter {
  /**
   * The revision and bucket sequence of the views this writer put last, oldest first: a payment's
   * next view is put on that sequence without reading the key first. The put is conditional all
   * the same, so a key another writer (another replica) changed since is read after all.
   */
  private readonly lastPut = new Map<string, { rev: number; seq: number }>();

  constructor(private readonly kv: KV) {}

  /** Opens the bucket, which the provisioning step creates (a replica started before it waits for it). */
  static async open(nc: NatsConnection, logger: Logger): Promise<PaymentViewWriter> {
    const kv = await retrySetup(
      'payment views bucket',
      async () => {
        const bucket = await new Kvm(jetstream(nc, { timeout: WRITE_TIMEOUT_MS })).open(PaymentViewsBucket.name);
        await bucket.status(); // opening checks nothing; this fails while the bucket is missing
        return bucket;
      },
      logger,
    );
    return new PaymentViewWriter(kv);
  }

  /**
   * Makes the bucket show `doc` unless it shows the same or a later revision already. A payment's
   * first view is one conditional put (the key must be new); a later one puts on the sequence of
   * this writer's last put of the key, or else reads the key's last view and puts on its revision,
   * and reads again when another writer came in between.
   */
  async write(doc: PaymentDoc): Promise<void> {
    const key = PaymentViewsBucket.key(doc.storeId, isLive(doc), doc._id);
    if (key === undefined) throw new Error(`payment ${doc._id} owes no view: its ids make no key`);
    const last = this.lastPut.get(key);
    // The bucket never goes back from a view put (every put is conditional), so it shows that one or a later one.
    if (last && last.rev >= doc.rev) {
      paymentViewWrites.inc({ outcome: 'kept' });
      return;
    }
    const view: PaymentView = { rev: doc.rev, payment: toPayment(doc) };
    const value = JSON.stringify(view);
    // A new payment's first view expects an empty key; whatever is there is read and compared.
    let expected: number | undefined = doc.rev === 1 ? 0 : last?.seq;
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      if (expected === undefined) {
        const entry = await this.kv.get(key);
        if (entry?.operation === 'PUT' && entry.json<PaymentView>().rev >= doc.rev) {
          paymentViewWrites.inc({ outcome: 'kept' });
          return;
        }
        expected = entry?.revision ?? 0;
      }
      try {
        this.remember(key, doc.rev, await this.kv.put(key, value, { previousSeq: expected }));
        paymentViewWrites.inc({ outcome: 'written' });
        return;
      } catch (err) {
        if (!lostTheRace(err)) throw err;
        expected = undefined;
      }
    }
    throw new Error(`the view of payment ${doc._id} changed under ${MAX_TRIES} writes in a row`);
  }

  private remember(key: string, rev: number, seq: number): void {
    this.lastPut.delete(key);
    this.lastPut.set(key, { rev, seq });
    if (this.lastPut.size > REMEMBERED_KEYS) this.lastPut.delete(this.lastPut.keys().next().value as string);
  }
}
