import type { NatsConnection } from '@nats-io/transport-node';
import { WebhookAttemptMessageSchema, type PaymentEvent, type WebhookAttemptMessage } from '@pix/contracts';
import { jetstream, type HandlerOutcome, type JetStreamClient, type JsMsg } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { advance, firstAttempt } from './attempt-messages';
import { decide, retryAt } from './conclusion';
import type { Config } from './config';
import { publishDeadLetter } from './dead-letters';
import { deliver } from './deliver';
import type { AttemptResult, Conclusion, DeliveryLog, EarlierDeliveries } from './delivery-log';
import { originOf, type EndpointLimiter, type Slot } from './endpoint-limiter';
import type { DispatcherMetrics } from './metrics';
import { withJitter } from './schedule';
import type { SecretsCache } from './secrets';

/**
 * How long a claim holds without its claimant extending it. The claimant extends it every half of
 * this while its request lasts; a claim without a result past it lost its claimant (the replica
 * died mid-attempt), and the attempt is made again at once under the next number, rather than
 * after the longest an attempt could take.
 */
export const CLAIM_LEASE_MS = 5_000;
/** How long an attempt waits when the store's secrets cannot be read (the gateway is away). */
const SECRETS_UNAVAILABLE_RETRY_MS = 5_000;
/**
 * How long a delivery waits for an earlier event of its payment that has not been recorded yet
 * (its stream message being redelivered). After that it goes anyway, rather than never.
 */
export const MISSING_PREDECESSOR_GRACE_MS = 10 * 60_000;
/** Waits while busy (deferral) or behind an earlier event (hold) back off from/to these. */
const WAIT_FIRST_MS = 250;
const DEFER_MAX_MS = 5_000;
/** Behind an event not recorded yet: nothing wakes it, so it looks again often. */
const MISSING_LOOK_MAX_MS = 2_000;

export interface AttemptRunnerDeps {
  nc: NatsConnection;
  config: Config;
  schedule: number[];
  logger: Logger;
  metrics: DispatcherMetrics;
  secrets: SecretsCache;
  log: DeliveryLog;
  limiter: EndpointLimiter;
}

/** The backoff of the n-th wait (0-based), capped, with ±10 % jitter. */
export function waitDelay(waits: number, maxMs: number, random: () => number = Math.random): number {
  return withJitter(Math.min(WAIT_FIRST_MS * 2 ** Math.min(waits, 16), maxMs), random);
}

/**
 * The attempt protocol: makes webhook attempts, each exactly once across replicas, and takes the
 * step that follows each (attempt-messages.ts lists them). An event's first attempt is made as it
 * is taken in (`takeIn`, from the PAYMENTS consumer) when its endpoint has a free slot and no
 * earlier event of its payment is pending: one insert records the delivery and claims the attempt,
 * one update records the result. Everything else arrives on WEBHOOK_ATTEMPTS (`handle`): retries,
 * attempts deferred while their endpoint was busy, events held behind an earlier one, replays.
 *
 * An attempt is claimed in the log before it is sent, so any number of replicas send it once; its
 * message is acked only once its result is in the log and its next step is on the stream, so a
 * crash at any point brings the message back (after the consumer's ack wait), and the steps are
 * taken again, idempotently: a result found recorded is concluded again; a claim found without one
 * whose lease ran out is made again under the next number.
 */
export class AttemptRunner {
  private readonly js: JetStreamClient;

  constructor(private readonly deps: AttemptRunnerDeps) {
    this.js = jetstream(deps.nc);
  }

  /** The trace context a scheduled message carries in its body. */
  static traceOf(msg: JsMsg): Record<string, string> | undefined {
    const parsed = WebhookAttemptMessageSchema.shape.trace.safeParse((msg.json() as { trace?: unknown }).trace);
    return parsed.success ? parsed.data : undefined;
  }

  /**
   * Takes a payment event in: records its delivery and makes its first attempt now when it may go
   * now, or hands it to WEBHOOK_ATTEMPTS. Resolves once the attempt's result is recorded, or its
   * message is on the stream: the PAYMENTS message is acked after that.
   */
  async takeIn(event: PaymentEvent): Promise<void> {
    const url = event.webhookUrl;
    if (!url) return;
    const { log } = this.deps;
    const msg = firstAttempt({ event, paymentId: event.paymentId, storeId: event.storeId, url }, 1);
    const firstDelayMs = this.deps.schedule[0] ?? 0;
    const handOff = async (step: 'first' | 'first-later' | 'no-secrets', at?: Date) => {
      await log.record(event, url, at ?? new Date(), false);
      await advance(this.js, step, msg, { at });
    };
    if (firstDelayMs > 0) return handOff('first-later', new Date(Date.now() + firstDelayMs));
    const earlier = await this.earlierOf(msg);
    if (earlier && (earlier.pending > 0 || earlier.recorded < msg.sequence - 1)) {
      // Recorded before it marks the earlier event it waits for, so that the earlier one, finishing,
      // finds it to wake.
      await log.record(event, url, new Date(), false);
      if (!(await this.held(msg, earlier))) await advance(this.js, 'first', msg);
      return;
    }
    const secrets = await this.secretsOf(msg);
    if (!secrets) return handOff('no-secrets', new Date(Date.now() + SECRETS_UNAVAILABLE_RETRY_MS));
    // A slot now, or the attempt waits on the stream: an event taken in never overtakes the
    // endpoint's attempts already waiting (retries, events held behind another).
    const slot = this.deps.limiter.tryTake(originOf(url));
    if (!slot) return handOff('first');
    try {
      // Recorded already (the PAYMENTS message came again): the attempt consumer sorts out its claim.
      if (!(await log.record(event, url, new Date(), true))) {
        await advance(this.js, 'first', msg);
        return;
      }
      await this.make(msg, secrets, slot);
    } finally {
      slot.release();
    }
  }

  /** An attempt message from WEBHOOK_ATTEMPTS. */
  async handle(raw: JsMsg): Promise<HandlerOutcome> {
    const parsed = WebhookAttemptMessageSchema.safeParse(raw.json());
    if (!parsed.success) {
      this.deps.logger.error({ subject: raw.subject, seq: raw.seq }, 'malformed webhook attempt message; dropped');
      return { ack: true };
    }
    const msg = parsed.data;
    const taken = await this.deps.limiter.take(originOf(msg.url));
    // Stopping: handed back at once, for another replica (or this one, restarted).
    if ('stopped' in taken) return this.handBack(msg, 0);
    // Its endpoint's line is full: the message goes back to the consumer, which hands it out again
    // a little later (backing off with its deliveries), rather than through a scheduled message,
    // which a stream's new leader may fire late. Only the attempts consumer's own pending messages
    // wait so: a backlog at one endpoint does not hold the others (see its max_ack_pending). This
    // comes before anything that reads the log, so a message handed back costs no command.
    if ('busy' in taken) return this.handBack(msg, waitDelay(raw.info.deliveryCount - 1, DEFER_MAX_MS));
    try {
      // Order within a payment is decided before its first attempt is made (a read, with the slot
      // held); a message deferred for the secrets passed it already, and a woken one was published
      // by the earlier event it waited for, once that one finished. A replay is a new delivery of
      // an old event and goes at once.
      if (msg.run === 1 && msg.attempt === 1 && msg.reason !== 'deferred' && msg.reason !== 'woken') {
        const earlier = await this.earlierOf(msg);
        if (earlier && (await this.held(msg, earlier))) return { ack: true };
      }
      return await this.attempt(msg, taken.slot);
    } finally {
      taken.slot.release();
    }
  }

  private async attempt(msg: WebhookAttemptMessage, slot: Slot): Promise<HandlerOutcome> {
    const secrets = await this.secretsOf(msg);
    if (!secrets) {
      await advance(this.js, 'no-secrets', msg, { at: new Date(Date.now() + SECRETS_UNAVAILABLE_RETRY_MS) });
      return { ack: true };
    }
    let current = msg;
    while (!(await this.deps.log.claim(current))) {
      const next = await this.resume(current);
      if ('ack' in next) return next;
      current = next;
    }
    await this.make(current, secrets, slot);
    return { ack: true };
  }

  /** The store's signing secrets; null when they cannot be read now (our outage, not the merchant's). */
  private async secretsOf(msg: WebhookAttemptMessage): Promise<string[] | null> {
    try {
      return await this.deps.secrets.secretsOf(msg.storeId);
    } catch (err) {
      this.deps.logger.warn({ err, eventId: msg.eventId }, 'cannot read the store webhook secrets; attempt postponed');
      return null;
    }
  }

  /**
   * Makes a claimed attempt, keeping its claim's lease while the request lasts, and records how it
   * ended. The endpoint's slot is given back as soon as the request is over, before the bookkeeping.
   */
  private async make(msg: WebhookAttemptMessage, secrets: string[], slot: Slot): Promise<void> {
    const { config, metrics, log } = this.deps;
    const lease = setInterval(() => {
      log
        .extendLease(msg.eventId, msg.run, msg.attempt, new Date(Date.now() + CLAIM_LEASE_MS))
        .catch((err: unknown) => this.deps.logger.warn({ err, eventId: msg.eventId }, 'extending a claim failed'));
    }, CLAIM_LEASE_MS / 2);
    let result: Awaited<ReturnType<typeof deliver>>;
    try {
      result = await deliver(msg.event, msg.url, secrets, {
        timeoutMs: config.WEBHOOK_TIMEOUT,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      });
    } finally {
      clearInterval(lease);
      slot.release();
    }
    metrics.deliveries.inc({ outcome: result.outcome });
    metrics.duration.observe(result.latencyMs / 1000);
    const next = result.outcome === 'failure' ? retryAt(this.deps.schedule, msg.attempt, Date.now()) : null;
    await this.conclude(msg, result, decide(result.outcome, next), false);
  }

  /** The payment's deliveries before this one (null for its first event: none to wait for). */
  private earlierOf(msg: WebhookAttemptMessage): Promise<EarlierDeliveries> | null {
    return msg.sequence > 1 ? this.deps.log.earlierDeliveries(msg.paymentId, msg.sequence) : null;
  }

  /**
   * Holds this event behind an earlier one of its payment, if it must wait; false when it may go
   * now. Behind one still pending, the earlier one is marked (this one is recorded already) and
   * publishes this one's attempt when it ends (wakeSuccessor); if that message is lost, the stall
   * check publishes it again. Behind one not recorded yet nothing wakes it, so it looks again by a
   * scheduled message.
   */
  private async held(msg: WebhookAttemptMessage, earlier: EarlierDeliveries): Promise<boolean> {
    const { log, logger } = this.deps;
    if (earlier.pending > 0 && (await log.waitBehind(msg.paymentId, msg.sequence))) return true;
    if (earlier.recorded < msg.sequence - 1) {
      const now = Date.now();
      const missingSince = msg.missingSince ?? new Date(now).toISOString();
      const givesUpAt = Date.parse(missingSince) + MISSING_PREDECESSOR_GRACE_MS;
      if (now < givesUpAt) {
        const at = new Date(Math.min(now + waitDelay(msg.waits, MISSING_LOOK_MAX_MS), givesUpAt));
        await advance(this.js, 'held', msg, { at, missingSince });
        return true;
      }
      logger.warn(
        { eventId: msg.eventId, paymentId: msg.paymentId, sequence: msg.sequence },
        'earlier events of the payment never arrived; delivering out of order',
      );
    }
    return false;
  }

  /**
   * The attempt was claimed before: this message came again (its handler crashed, its replica
   * died, the database went away before the result was recorded) or twice (the stall check). With
   * a result recorded, the steps after it are taken again (each is idempotent); without one, the
   * claimant may still be at it while its lease lasts (the message is handed back until then),
   * after which the attempt is made again under the next number, by this same message (`redo`),
   * which stays unacked until it is recorded. A message of another run, or of a delivery no longer
   * in the log, is dropped.
   */
  private async resume(msg: WebhookAttemptMessage): Promise<HandlerOutcome | WebhookAttemptMessage> {
    const found = await this.deps.log.findClaim(msg.eventId, msg.run, msg.attempt);
    if (!found?.claim || found.run !== msg.run) return { ack: true };
    const { claim } = found;
    if (claim.outcome) {
      const result = { ...claim, outcome: claim.outcome };
      await this.conclude(msg, result, decide(claim.outcome, claim.nextAttemptAt), true);
      return { ack: true };
    }
    const lapsesIn = claim.leaseUntil.getTime() - Date.now();
    if (lapsesIn > 0) return this.handBack(msg, lapsesIn);
    this.deps.logger.warn(
      { eventId: msg.eventId, run: msg.run, attempt: msg.attempt },
      'a webhook attempt was claimed but never finished; making it again',
    );
    return advance(this.js, 'redo', msg);
  }

  /** The message goes back to its consumer, which hands it out again in `inMs`. */
  private async handBack(msg: WebhookAttemptMessage, inMs: number): Promise<HandlerOutcome> {
    await advance(this.js, 'hand-back', msg);
    return { ack: false, retryInMs: inMs };
  }

  /**
   * Records the attempt's result and what follows, then takes that step: the next attempt
   * scheduled, or the dead letter published; a payment's next event waiting for this one is woken
   * when this one is finished. `again` when redoing these after a crash (the metrics and the log
   * line were already counted). A result the log no longer takes (the attempt was made again since)
   * leads nowhere.
   */
  private async conclude(
    msg: WebhookAttemptMessage,
    result: AttemptResult,
    conclusion: Conclusion,
    again: boolean,
  ): Promise<void> {
    const { logger, metrics, log } = this.deps;
    const { recorded, successorWaiting } = await log.conclude(msg, result, conclusion);
    if (!recorded) {
      logger.warn(
        { eventId: msg.eventId, run: msg.run, attempt: msg.attempt },
        'a late webhook attempt result ignored',
      );
      return;
    }
    const line = {
      eventId: msg.eventId,
      paymentId: msg.paymentId,
      type: msg.event.body.event,
      endpoint: originOf(msg.url),
      run: msg.run,
      attempt: msg.attempt,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
    };
    if (conclusion.next === 'retry') {
      await advance(this.js, 'retry', msg, { at: conclusion.at });
      if (!again) {
        metrics.retries.inc();
        logger.warn(
          { ...line, error: result.error, nextAttemptAt: conclusion.at },
          'webhook delivery failed; will retry',
        );
      }
      return;
    }
    if (conclusion.next === 'dead') {
      await publishDeadLetter(this.js, msg, conclusion.reason, result.error);
      if (!again) {
        metrics.deadLetters.inc();
        logger.error({ ...line, error: result.error, reason: conclusion.reason }, 'webhook delivery dead-lettered');
      }
    } else if (!again) {
      logger.info(line, 'webhook delivered');
    }
    if (successorWaiting) await this.wakeSuccessor(msg);
  }

  /**
   * The payment's next event, held waiting for this one, goes now: its first attempt is published
   * at once, built from its delivery in the log (recorded before it waited). Not through its
   * scheduled hold, which a stream's new leader may fire late; the hold still fires in its time and
   * then finds the attempt claimed. Any later events are held behind that one and woken by it.
   */
  private async wakeSuccessor(msg: WebhookAttemptMessage): Promise<void> {
    const next = await this.deps.log.successorOf(msg.paymentId, msg.sequence);
    if (next?.status === 'pending' && next.claimed === 0) {
      await advance(this.js, 'wake', firstAttempt(next, next.run));
    }
  }
}
