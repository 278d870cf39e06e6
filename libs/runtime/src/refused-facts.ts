import mongoose, { Schema, type Model } from 'mongoose';
import { FactHeaders, REFUSED_PAYLOAD_CHARS, type FactRefusalReason, type RefusedFact } from '@pix/contracts';
import type { FactVerifier, HandlerOutcome, JsMsg, ReceivedFact } from '@pix/messaging';
import { Counter, libraryMetric, type Logger } from '@pix/observability';
import { syncIndexes } from './indexes';

/**
 * Facts refused for their signature (unsigned, an unknown key, a signature that does not match), by
 * the stream they came on and why: each one counted once, where it was refused. Alerted on
 * (PixFactsRefused): a refused fact is a fact someone tried to state without the producer's key.
 */
const factsRefused = libraryMetric(
  new Counter({
    name: 'bus_facts_refused_total',
    help: 'Money-moving facts refused for their signature, by stream and reason',
    labelNames: ['stream', 'reason'] as const,
    registers: [],
  }),
);

/** How long a refused fact is kept aside: long enough for an operator to look, then it goes. */
const KEEP_REFUSED_DAYS = 30;
/**
 * The most of a refused fact's payload that is kept: every fact the platform states is far smaller,
 * so a genuine one is kept whole (and can be verified again); a larger one cannot be genuine.
 */
const KEEP_PAYLOAD_CHARS = 64 * 1024;
/** Refused facts one `facts reapply` looks at, oldest first. */
const REAPPLY_BATCH = 500;
/** Tries of a reapplied fact whose handler asks to look again (another change of its payment in between). */
const REAPPLY_TRIES = 5;

interface RefusedFactDoc {
  /** `stream:sequence`: a fact refused again after a crash (redelivered before its ack) is kept once. */
  _id: string;
  subject: string;
  msgId: string | null;
  reason: FactRefusalReason;
  keyId: string | null;
  stream: string;
  streamSequence: number;
  refusedAt: Date;
  payload: string;
  /** The signature it came with, to check it again once the verifier's keys are fixed. */
  signature: string | null;
}

function refusedFactModel(collection: string): Model<RefusedFactDoc> {
  const schema = new Schema<RefusedFactDoc>(
    {
      _id: { type: String, required: true },
      subject: { type: String, required: true },
      msgId: { type: String, default: null },
      reason: { type: String, required: true },
      keyId: { type: String, default: null },
      stream: { type: String, required: true },
      streamSequence: { type: Number, required: true },
      refusedAt: { type: Date, required: true },
      payload: { type: String, default: '' },
      signature: { type: String, default: null },
    },
    { collection, versionKey: false },
  );
  // The newest first for `admin facts refused`, and gone after KEEP_REFUSED_DAYS.
  schema.index({ refusedAt: -1 }, { expireAfterSeconds: KEEP_REFUSED_DAYS * 86_400 });
  return mongoose.model<RefusedFactDoc>(collection, schema);
}

/**
 * The facts a consumer refused, kept aside in a collection of the service that applies them (its
 * dead letter): never applied, never redelivered, shown to the operator by `admin facts refused`.
 */
export class RefusedFacts {
  private constructor(private readonly model: Model<RefusedFactDoc>) {}

  /** `collection`: the applying service's own (its database login reaches its collections only). */
  static async open({ collection }: { collection: string }, logger?: Logger): Promise<RefusedFacts> {
    const model = refusedFactModel(collection);
    await syncIndexes([model], logger);
    return new RefusedFacts(model);
  }

  /** Keeps a refused message aside; whether it was not kept already (a redelivery finds it there). */
  async keep(msg: JsMsg, reason: FactRefusalReason, keyId: string | null): Promise<boolean> {
    const id = `${msg.info.stream}:${msg.seq}`;
    const result = await this.model.updateOne(
      { _id: id },
      {
        $setOnInsert: {
          subject: msg.subject,
          msgId: msg.headers?.get('Nats-Msg-Id') || null,
          reason,
          keyId,
          stream: msg.info.stream,
          streamSequence: msg.seq,
          refusedAt: new Date(),
          payload: Buffer.from(msg.data).toString('utf8').slice(0, KEEP_PAYLOAD_CHARS),
          signature: msg.headers?.get(FactHeaders.signature) || null,
        },
      },
      { upsert: true },
    );
    return result.upsertedCount > 0;
  }

  async newest(limit: number): Promise<RefusedFact[]> {
    const docs = await this.model.find().sort({ refusedAt: -1 }).limit(limit).lean<RefusedFactDoc[]>().exec();
    return docs.map(({ _id, refusedAt, signature: _signature, payload, ...fact }) => ({
      ...fact,
      refusedAt: refusedAt.toISOString(),
      payload: payload.slice(0, REFUSED_PAYLOAD_CHARS),
    }));
  }

  /**
   * After the operator fixed a verifier's keys (a rotation done out of order): checks the kept facts
   * again, oldest first, applies with `apply` those that are genuine now and removes them; the rest
   * stay refused. `apply` is the consumer's own handler, idempotent like it.
   */
  async reapply(
    verifier: FactVerifier,
    apply: (subject: string, payload: string) => Promise<HandlerOutcome>,
    logger: Logger,
  ): Promise<{ applied: number; refused: number }> {
    const docs = await this.model.find().sort({ refusedAt: 1 }).limit(REAPPLY_BATCH).lean<RefusedFactDoc[]>().exec();
    let applied = 0;
    for (const doc of docs) {
      const kept = new Map([
        [FactHeaders.keyId, doc.keyId],
        [FactHeaders.signature, doc.signature],
        ['Nats-Msg-Id', doc.msgId],
      ]);
      const check = verifier.check({
        subject: doc.subject,
        headers: { get: (name) => kept.get(name) ?? '' },
        data: Buffer.from(doc.payload, 'utf8'),
      });
      if (!check.genuine || !(await appliedWithin(REAPPLY_TRIES, () => apply(doc.subject, doc.payload)))) continue;
      await this.model.deleteOne({ _id: doc._id });
      applied++;
      logger.warn(
        { subject: doc.subject, msgId: doc.msgId, stream: doc.stream, seq: doc.streamSequence, keyId: check.keyId },
        'refused fact verifies now: applied',
      );
    }
    return { applied, refused: docs.length - applied };
  }
}

/** Runs a handler until it acks, at most `tries` times, waiting as it asks in between. */
async function appliedWithin(tries: number, handle: () => Promise<HandlerOutcome>): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    const outcome = await handle();
    if (outcome.ack) return true;
    await new Promise((resolve) => setTimeout(resolve, outcome.retryInMs));
  }
  return false;
}

/**
 * The door a consumer's facts go through before they are applied: a fact its producer signed goes
 * on; any other is refused (acked by the caller, never applied), kept aside when the consumer has
 * a dead letter, counted and logged once (its subject, ids and the reason: no payload, no key).
 */
export class FactGate {
  constructor(
    private readonly verifier: FactVerifier,
    private readonly logger: Logger,
    private readonly keptAside?: RefusedFacts,
  ) {}

  /** Whether the fact is genuine; a refused one is kept aside first, so a failure to keep it is retried. */
  async admit(msg: JsMsg): Promise<boolean> {
    const check = this.verifier.check(msg);
    if (check.genuine) return true;
    const first = this.keptAside ? await this.keptAside.keep(msg, check.reason, check.keyId) : true;
    if (first) this.refused(msg, { stream: msg.info.stream, seq: msg.seq }, check.reason, check.keyId);
    return false;
  }

  /**
   * For a reader without a dead letter (the gateway's live pages, fed by a stream's republish): whether
   * to show the fact, as its stream stored it (its original subject and sequence).
   */
  admitNow(fact: ReceivedFact, stored: { stream: string; seq?: number }): boolean {
    const check = this.verifier.check(fact);
    if (!check.genuine) this.refused(fact, stored, check.reason, check.keyId);
    return check.genuine;
  }

  private refused(
    fact: ReceivedFact,
    stored: { stream: string; seq?: number },
    reason: FactRefusalReason,
    keyId: string | null,
  ): void {
    factsRefused.inc({ stream: stored.stream, reason });
    this.logger.error(
      {
        subject: fact.subject,
        msgId: fact.headers?.get('Nats-Msg-Id') || undefined,
        stream: stored.stream,
        seq: stored.seq,
        reason,
        keyId,
      },
      this.keptAside
        ? 'fact refused: not signed by its producer; kept aside, not applied'
        : 'fact refused: not signed by its producer; not shown',
    );
  }
}
