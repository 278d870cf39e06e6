import {
  DomainError,
  WebhookAttemptMessageSchema,
  type PaymentEvent,
  type WebhookAttemptMessage,
} from '@pix/contracts';
import type { HandlerOutcome, JetStreamClient, JsMsg } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { advance, firstAttempt, type AttemptStep } from './attempt-messages';
import { decide, retryAt } from './conclusion';
import { publishDeadLetter } from './dead-letters';
import type { AttemptResult as SentResult } from './deliver';
import {
  holdsLaterEvents,
  someNotRecorded,
  type AttemptResult,
  type Conclusion,
  type DeliveryLogProtocol,
  type EarlierDeliveries,
} from './delivery-log';
import { originOf, type AttemptKind, type EndpointLimiter, type Slot } from './endpoint-limiter';
import { EventsInHand } from './events-in-hand';
import { FinishedEvents } from './finished-events';
import type { DispatcherMetrics } from './metrics';
import { withJitter } from './schedule';
import type { SecretsCache } from './secrets';
import { WaitingRetries } from './waiting-retries';

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
/**
 * How long an event taken in waits for its payment's earlier events this replica has in hand: long
 * enough for an attempt at an endpoint that answers at once, short enough that one at a slow
 * endpoint holds the intake's place only briefly (events-in-hand.ts).
 */
const EARLIER_IN_HAND_WAIT_MS = 500;
/** Behind an event not recorded yet: nothing wakes it, so it looks again often. */
const MISSING_LOOK_MAX_MS = 2_000;
/**
 * How many of an endpoint's waiting retries each 2xx of it brings forward: a slow start, each
 * success making room for the next few, within the endpoint's slots.
 */
const BRING_FORWARD_AT_ONCE = 16;
/** A retry due within this goes by its schedule: bringing it forward would save nothing. */
const BRING_FORWARD_MIN_AHEAD_MS = 2_000;

export interface AttemptRunnerDeps {
  js: JetStreamClient;
  schedule: number[];
  logger: Logger;
  metrics: DispatcherMetrics;
  secrets: Pick<SecretsCache, 'secretsOf'>;
  log: DeliveryLogProtocol;
  limiter: EndpointLimiter;
  /** Makes one attempt: POSTs the signed event to its URL (deliver.ts, with the configured timeout and guard). */
  send: (event: PaymentEvent, url: string, secrets: string[]) => Promise<SentResult>;
}

/** The backoff of the n-th wait (0-based), capped, with ±10 % jitter. */
export function waitDelay(waits: number, maxMs: number, random: () => number = Math.random): number {
  return withJitter(Math.min(WAIT_FIRST_MS * 2 ** Math.min(waits, 16), maxMs), random);
}

/**
 * What goes through the admission pipeline: an event taken in from PAYMENTS, not recorded yet
 * (`recorded` once it is), which never waits for a slot nor goes back to its consumer (it goes to
 * WEBHOOK_ATTEMPTS instead); or an attempt message from WEBHOOK_ATTEMPTS, recorded, which waits in
 * line for a slot or is handed back to its consumer for a little later.
 */
type Entry =
  | { from: 'intake'; msg: WebhookAttemptMessage; event: PaymentEvent; recorded: boolean }
  | { from: 'attempts'; msg: WebhookAttemptMessage; deliveryCount: number };

/** An attempt made, up to its result: what is left is recording it and taking the next step. */
interface Sent {
  msg: WebhookAttemptMessage;
  result: SentResult;
}

/**
 * The attempt protocol: makes webhook attempts, each exactly once across replicas, and takes the
 * step that follows each (attempt-messages.ts lists them). Both ways in go through one admission
 * pipeline (`admit`): payment events taken in from the PAYMENTS consumer (`takeIn`), and attempt
 * messages on WEBHOOK_ATTEMPTS (`handle`: retries, attempts deferred while their endpoint was busy,
 * events held behind an earlier one, replays). An event's first attempt is made as it is taken in
 * when its endpoint has a free slot and no earlier event of its payment is pending: one insert
 * records the delivery and claims the attempt, one update records the result.
 *
 * An attempt is claimed in the log before it is sent, so any number of replicas send it once; its
 * message is acked only once its result is in the log and its next step is on the stream, so a
 * crash at any point brings the message back (after the consumer's ack wait), and the steps are
 * taken again, idempotently: a result found recorded is concluded again; a claim found without one
 * whose lease ran out is made again under the next number.
 */
export class AttemptRunner {
  /** The payments' events this replica finished, so that a later one's order is decided without a read. */
  private readonly finished = new FinishedEvents();
  /** The payments' events this replica is taking in, for a later one to wait a moment for. */
  private readonly inHand = new EventsInHand();
  /** The retries this replica scheduled, brought forward when their endpoint answers 2xx again. */
  private readonly waiting = new WaitingRetries();
  /** When each endpoint last answered 2xx here, for a held event to bring its predecessor ahead (`bringAhead`). */
  private readonly answeredAt = new EndpointAnswers();

  constructor(private readonly deps: AttemptRunnerDeps) {}

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
    const msg = firstAttempt({ event, paymentId: event.paymentId, storeId: event.storeId, url }, 1);
    const doneWith = this.inHand.begin(event.paymentId, event.sequence);
    try {
      await this.inHand.earlierDone(event.paymentId, event.sequence, EARLIER_IN_HAND_WAIT_MS);
      await this.admit({ from: 'intake', msg, event, recorded: false });
    } finally {
      doneWith();
    }
  }

  /** An attempt message from WEBHOOK_ATTEMPTS. */
  async handle(raw: JsMsg): Promise<HandlerOutcome> {
    const parsed = WebhookAttemptMessageSchema.safeParse(raw.json());
    if (!parsed.success) {
      this.deps.logger.error({ subject: raw.subject, seq: raw.seq }, 'malformed webhook attempt message; dropped');
      return { ack: true };
    }
    return this.admit({ from: 'attempts', msg: parsed.data, deliveryCount: raw.info.deliveryCount });
  }

  /**
   * The admission pipeline, one for both ways in, its gates in one order: an attempt message's
   * slot, the payment's order, the store's secrets, an event taken in's slot, the claim, the
   * request; then its result recorded and the next step taken. A message waits for its slot before
   * anything reads the log; an event taken in only looks for one once it may go, and never waits
   * for it (it is passed on to WEBHOOK_ATTEMPTS), so no PAYMENTS message waits for an endpoint. The
   * slot is given back in one place, as soon as the request is over, before the bookkeeping.
   */
  private async admit(entry: Entry): Promise<HandlerOutcome> {
    const firstDelayMs = this.deps.schedule[0] ?? 0;
    if (entry.from === 'intake' && firstDelayMs > 0) {
      return this.passOn(entry, 'first-later', new Date(Date.now() + firstDelayMs));
    }
    const inUse: { slot?: Slot } = {};
    let sent: Sent | HandlerOutcome;
    try {
      sent = await this.upToTheRequest(entry, inUse);
    } finally {
      inUse.slot?.release();
    }
    if ('ack' in sent) return sent;
    const { metrics } = this.deps;
    metrics.deliveries.inc({ outcome: sent.result.outcome });
    metrics.duration.observe(sent.result.latencyMs / 1000);
    const next = sent.result.outcome === 'failure' ? retryAt(this.deps.schedule, sent.msg.attempt, Date.now()) : null;
    await this.conclude(sent.msg, sent.result, decide(sent.result.outcome, next), false);
    return { ack: true };
  }

  /** The pipeline's gates up to the attempt's request; `inUse` gets the slot taken, for `admit` to give back. */
  private async upToTheRequest(entry: Entry, inUse: { slot?: Slot }): Promise<Sent | HandlerOutcome> {
    const { msg } = entry;
    const origin = originOf(msg.url);
    if (entry.from === 'attempts') {
      // Its retry, if one waits here, is this message or one that came before it.
      this.waiting.forget(msg.eventId);
      // Before anything that reads the log, so a message handed back costs no command. Busy (its
      // endpoint's line is full, or its endpoint is served while every slot is taken): the message
      // goes back to the consumer, which hands it out again a little later (backing off with its
      // deliveries). Only the attempts consumer's own pending messages wait so: a backlog at one
      // endpoint does not hold the others (see its max_ack_pending), and an endpoint with nothing
      // in flight waits here for the next slot freed (endpoint-limiter.ts). An event's first
      // attempt waits in a line of its own, beside the retries owed. Stopping: handed back
      // at once, for another replica (or this one, restarted).
      const taken = await this.deps.limiter.take(origin, kindOf(msg));
      if ('stopped' in taken) return this.handBack(msg, 0);
      if ('busy' in taken) return this.handBack(msg, waitDelay(entry.deliveryCount - 1, DEFER_MAX_MS));
      inUse.slot = taken.slot;
    }
    if (this.decidesOrder(entry)) {
      const earlier = await this.earlierOf(msg);
      if (earlier && (earlier.pending > 0 || someNotRecorded(earlier, msg.sequence))) {
        // Recorded before it marks the earlier event it waits for, so that the earlier one,
        // finishing, finds it to wake.
        await this.recordUnclaimed(entry);
        if ((await this.holdBehind(msg, earlier)) === 'held') return { ack: true };
      }
    }
    const secrets = await this.secretsOf(msg);
    if (!secrets) return this.passOn(entry, 'no-secrets', new Date(Date.now() + SECRETS_UNAVAILABLE_RETRY_MS));
    if (entry.from === 'intake') {
      // A slot now, or the attempt waits on the stream: an event taken in never overtakes the
      // endpoint's first attempts already waiting, nor its owed ones beyond the first attempts' share.
      const slot = this.deps.limiter.tryTake(origin);
      if (!slot) return this.passOn(entry, 'first');
      inUse.slot = slot;
    }
    const claimed = await this.claim(entry);
    if ('ack' in claimed) return claimed;
    return { msg: claimed, result: await this.send(claimed, secrets) };
  }

  /**
   * Whether the payment's order is decided here: before an event's first attempt is made (a read,
   * with the attempts' slot held). A message deferred for the secrets passed it already, and a
   * woken one was published by the earlier event it waited for, once that one finished. A replay is
   * a new delivery of an old event and goes at once.
   */
  private decidesOrder({ msg }: Entry): boolean {
    return msg.run === 1 && msg.attempt === 1 && msg.reason !== 'deferred' && msg.reason !== 'woken';
  }

  /** An event taken in is recorded, unclaimed, before it waits anywhere; a message's delivery is recorded already. */
  private async recordUnclaimed(entry: Entry, firstAttemptAt = new Date()): Promise<void> {
    if (entry.from !== 'intake' || entry.recorded) return;
    await this.deps.log.record(entry.event, entry.msg.url, firstAttemptAt, false);
    entry.recorded = true;
  }

  /** The attempt waits on WEBHOOK_ATTEMPTS: `step`'s message published (an event taken in, recorded first). */
  private async passOn(entry: Entry, step: AttemptStep, at?: Date): Promise<HandlerOutcome> {
    await this.recordUnclaimed(entry, at);
    await advance(this.deps.js, step, entry.msg, { at });
    return { ack: true };
  }

  /** The message goes back to its consumer, which hands it out again in `inMs`. */
  private async handBack(msg: WebhookAttemptMessage, inMs: number): Promise<HandlerOutcome> {
    await advance(this.deps.js, 'hand-back', msg);
    return { ack: false, retryInMs: inMs };
  }

  /**
   * Claims the attempt, or says what became of it. An event taken in and not recorded yet is
   * recorded with its first attempt claimed (one insert); recorded already (the PAYMENTS message
   * came again), the attempt consumer sorts out its claim. A message's attempt claimed before is
   * resumed, and a lapsed claim made again in place under the next number.
   */
  private async claim(entry: Entry): Promise<WebhookAttemptMessage | HandlerOutcome> {
    const { log } = this.deps;
    if (entry.from === 'intake') {
      const claimed = entry.recorded
        ? await log.claim(entry.msg)
        : await log.record(entry.event, entry.msg.url, new Date(), true);
      entry.recorded = true;
      return claimed ? entry.msg : this.passOn(entry, 'first');
    }
    let current = entry.msg;
    while (!(await log.claim(current))) {
      const next = await this.resume(current);
      if ('ack' in next) return next;
      current = next;
    }
    return current;
  }

  /**
   * The store's signing secrets; null when they cannot be read now (our outage, not the merchant's),
   * or none of them opens (sealed under a retired key): the attempt waits either way, until the
   * gateway answers or the store's secret is rotated.
   */
  private async secretsOf(msg: WebhookAttemptMessage): Promise<string[] | null> {
    try {
      return await this.deps.secrets.secretsOf(msg.storeId, msg.event.body.livemode);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'webhook_secrets_unreadable') {
        // The gateway logs such a store once an hour and counts every read (an alert pages);
        // a line per postponed attempt here would only repeat it every 5 s.
        this.deps.logger.debug({ eventId: msg.eventId, storeId: msg.storeId }, 'no webhook secret of the store opens');
      } else {
        this.deps.logger.warn(
          { err, eventId: msg.eventId },
          'cannot read the store webhook secrets; attempt postponed',
        );
      }
      return null;
    }
  }

  /** Makes a claimed attempt, keeping its claim's lease while the request lasts. */
  private async send(msg: WebhookAttemptMessage, secrets: string[]): Promise<SentResult> {
    const { log, logger } = this.deps;
    const lease = setInterval(() => {
      log
        .extendLease(msg.eventId, msg.run, msg.attempt, new Date(Date.now() + CLAIM_LEASE_MS))
        .catch((err: unknown) => logger.warn({ err, eventId: msg.eventId }, 'extending a claim failed'));
    }, CLAIM_LEASE_MS / 2);
    try {
      return await this.deps.send(msg.event, msg.url, secrets);
    } finally {
      clearInterval(lease);
    }
  }

  /**
   * The payment's deliveries before this one; null when there is none to wait for: its first event,
   * or a later one whose earlier events this replica finished itself (no read then).
   */
  private earlierOf(msg: WebhookAttemptMessage): Promise<EarlierDeliveries> | null {
    if (this.finished.allBefore(msg.paymentId, msg.sequence)) return null;
    return this.deps.log.earlierDeliveries(msg.paymentId, msg.sequence);
  }

  /**
   * Holds this event behind an earlier one of its payment, if it must wait; `go` when it may go
   * now. With an earlier event not recorded yet, nothing can wake it (a mark on the ones recorded
   * wakes their successor, not this event), so it looks again by a scheduled message until all are
   * recorded, for 10 minutes at most. With all recorded and one still pending, the pending ones are
   * marked (this one is recorded already), and the one just before it publishes this one's attempt
   * as it ends (wakeSuccessor); if that message is lost, the stall check publishes it again.
   */
  private async holdBehind(msg: WebhookAttemptMessage, earlier: EarlierDeliveries): Promise<'held' | 'go'> {
    const { log, logger } = this.deps;
    const line = { eventId: msg.eventId, paymentId: msg.paymentId, sequence: msg.sequence };
    const missing = someNotRecorded(earlier, msg.sequence);
    if (missing) {
      const now = Date.now();
      const missingSince = msg.missingSince ?? new Date(now).toISOString();
      const givesUpAt = Date.parse(missingSince) + MISSING_PREDECESSOR_GRACE_MS;
      if (now < givesUpAt) {
        const at = new Date(Math.min(now + waitDelay(msg.waits, MISSING_LOOK_MAX_MS), givesUpAt));
        await advance(this.deps.js, 'held', msg, { at, missingSince });
        // Its first hold only: a predecessor missing for its whole grace would log a line every 2 s.
        logger[msg.missingSince === null ? 'info' : 'debug'](
          { ...line, missingSince, lookAt: at.toISOString() },
          'webhook held: an earlier event of its payment is not recorded yet',
        );
        return 'held';
      }
    }
    if (earlier.pending > 0 && (await log.waitBehind(msg.paymentId, msg.sequence))) {
      logger.debug(line, 'webhook held behind an earlier event of its payment still pending');
      await this.bringAhead(msg, earlier);
      return 'held';
    }
    if (missing) logger.warn(line, 'earlier events of the payment never arrived; delivering out of order');
    return 'go';
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
    return advance(this.deps.js, 'redo', msg);
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
    const { logger, metrics, log, js } = this.deps;
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
      const scheduled = await advance(js, 'retry', msg, { at: conclusion.at });
      this.waiting.add(line.endpoint, scheduled, conclusion.at);
      if (!again) {
        metrics.retries.inc();
        logger.warn(
          { ...line, error: result.error, nextAttemptAt: conclusion.at },
          'webhook delivery failed; will retry',
        );
      }
      return;
    }
    // Delivered or dead: this delivery is finished (recorded so above), whatever follows fails.
    this.finished.finished(msg.paymentId, msg.sequence);
    if (conclusion.next === 'dead') {
      await publishDeadLetter(js, msg, conclusion.reason, result.error);
      if (!again) {
        metrics.deadLetters.inc();
        logger.error({ ...line, error: result.error, reason: conclusion.reason }, 'webhook delivery dead-lettered');
      }
    } else if (!again) {
      logger.info(line, 'webhook delivered');
      this.answeredAt.answered(line.endpoint);
      await this.bringForward(line.endpoint);
    }
    if (successorWaiting) await this.wakeSuccessor(msg);
  }

  /**
   * The endpoint answered 2xx: retries of its that this replica scheduled go now rather than at
   * their time (minutes or hours later, by the schedule), a few at a time, so that each later
   * success brings forward the next few and an endpoint that just came back is not flooded. One
   * that fails again is scheduled as any failed attempt is.
   */
  private async bringForward(endpoint: string): Promise<void> {
    const due = this.waiting.take(endpoint, BRING_FORWARD_AT_ONCE, Date.now() + BRING_FORWARD_MIN_AHEAD_MS);
    if (due.length === 0) return;
    const { js, metrics, logger } = this.deps;
    try {
      for (const retry of due) {
        await advance(js, 'endpoint-back', retry);
        metrics.broughtForward.inc();
      }
      logger.info({ endpoint, retries: due.length }, 'endpoint answers again: its waiting retries go now');
    } catch (err) {
      // Not this delivery's own step: the retries not published go at their scheduled time.
      logger.warn({ err, endpoint }, 'waiting retries not brought forward; they go at their time');
    }
  }

  /**
   * The payment's earliest pending event, which `msg` now waits behind, goes now when all it waits
   * for is its next retry (its last attempt failed) and its endpoint has answered 2xx here since:
   * otherwise the later event would wait for that retry's schedule (minutes or hours, by
   * production's), or behind the endpoint's whole backlog after an outage. Its message is served
   * with the events' first attempts (`ahead`); its schedule still fires, and finds the attempt made.
   * Before the endpoint answers again nothing is brought: an attempt made then would only spend
   * one of the schedule's. The order check's read says whether it waits for a retry; the delivery
   * itself is read only to send it ahead.
   */
  private async bringAhead(msg: WebhookAttemptMessage, earlier: EarlierDeliveries): Promise<void> {
    const waiting = earlier.waitingForRetry;
    if (!waiting || !this.answeredAt.since(originOf(msg.url), waiting.failedAttemptAt.getTime())) return;
    const blocking = await this.deps.log.delivery(waiting.eventId);
    // Read as it is now: a retry may have been claimed, or finished it, since.
    if (!blocking || !holdsLaterEvents(blocking) || blocking.runAttempts !== blocking.claimed) return;
    const line = { eventId: blocking._id, paymentId: msg.paymentId, attempt: blocking.claimed + 1 };
    try {
      await advance(this.deps.js, 'ahead', { ...firstAttempt(blocking, blocking.run), attempt: line.attempt });
    } catch (err) {
      // The held event is held all the same: the retry goes at its time, and wakes it then.
      this.deps.logger.warn(
        { ...line, err },
        'a retry a later event waits for was not sent ahead; it goes at its time',
      );
      return;
    }
    this.waiting.forget(blocking._id);
    this.deps.metrics.broughtForward.inc();
    this.deps.logger.info(
      { ...line, heldEventId: msg.eventId },
      'a later event of the payment waits for this retry: it goes now',
    );
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
      await advance(this.deps.js, 'wake', firstAttempt(next, next.run));
    }
  }
}

/**
 * The limiter's line for an attempt message: an event's first attempt, or a retry a later event of
 * its payment waits for (`ahead`), goes with the first attempts; any other is owed from before.
 */
function kindOf(msg: WebhookAttemptMessage): AttemptKind {
  return (msg.run === 1 && msg.attempt === 1) || msg.ahead === true ? 'first' : 'again';
}

/** When each endpoint (URL origin) last answered 2xx, for the most recently answering ones (a few hundred KiB at most). */
class EndpointAnswers {
  private readonly at = new Map<string, number>();

  constructor(private readonly limit = 10_000) {}

  answered(endpoint: string, now = Date.now()): void {
    // Moved to the end, so that the first key is the endpoint heard from longest ago.
    this.at.delete(endpoint);
    if (this.at.size >= this.limit) this.at.delete(this.at.keys().next().value!);
    this.at.set(endpoint, now);
  }

  /** Whether the endpoint answered 2xx after `time` (ms). */
  since(endpoint: string, time: number): boolean {
    return (this.at.get(endpoint) ?? -Infinity) > time;
  }
}
