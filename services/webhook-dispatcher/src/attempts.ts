import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Streams, Subjects, WebhookAttemptMessageSchema, type WebhookAttemptMessage } from '@pix/contracts';
import { jetstream, type HandlerOutcome, type JetStreamClient, type JsMsg } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { scheduleAttempt } from './attempt-messages';
import type { Config } from './config';
import { publishDeadLetter } from './dead-letters';
import { deliver } from './deliver';
import {
  claimAttempt,
  earlierDeliveries,
  findAttempt,
  markDead,
  markDelivered,
  markRetrying,
  recordAttemptResult,
  type AttemptResult,
} from './delivery-log';
import type { DispatcherMetrics } from './metrics';
import { withJitter } from './schedule';
import type { SecretsCache } from './secrets';

/**
 * A claimed attempt without a result lapses this long after its timeout: its replica died
 * mid-attempt, and the attempt is made again. It is also the slack in the consumer's ack_wait.
 */
export const CLAIM_MARGIN_MS = 15_000;
/** How long an attempt waits when the store's secrets cannot be read (the gateway is away). */
const SECRETS_UNAVAILABLE_RETRY_MS = 5_000;
/**
 * How long a delivery waits for an earlier event of its payment that has not been recorded yet
 * (its stream message being redelivered). After that it goes anyway, rather than never.
 */
export const MISSING_PREDECESSOR_GRACE_MS = 10 * 60_000;
/** Waits while busy (deferral) or behind an earlier event (hold) back off from/to these. */
const WAIT_FIRST_MS = 250;
const DEFER_MAX_MS = 3_000;
const HOLD_MAX_MS = 30_000;

export interface AttemptRunnerDeps {
  nc: NatsConnection;
  config: Config;
  schedule: number[];
  logger: Logger;
  metrics: DispatcherMetrics;
  secrets: SecretsCache;
}

/** The backoff of the n-th wait (0-based), capped, with ±10 % jitter. */
export function waitDelay(waits: number, maxMs: number, random: () => number = Math.random): number {
  return withJitter(Math.min(WAIT_FIRST_MS * 2 ** Math.min(waits, 16), maxMs), random);
}

/**
 * Makes the webhook attempts that arrive on WEBHOOK_ATTEMPTS (webhooks.attempts.due), each message
 * carrying everything the attempt needs. Messages are handled concurrently; at most
 * WEBHOOK_ENDPOINT_CONCURRENCY attempts per endpoint (URL origin) and WEBHOOK_MAX_IN_FLIGHT in all
 * are in flight per replica. Beyond those limits only a few messages per endpoint wait here for a
 * slot; the rest are not kept waiting unacked (that would let one endpoint's backlog fill the
 * consumer's max_ack_pending and stall every other endpoint): they are re-scheduled a little later
 * and acked. Each message is acked only once its
 * outcome is in the log and its next step (a retry scheduled, a dead letter published) is on the
 * stream, so a crash at any point redelivers it and the steps are taken again, idempotently.
 */
export class AttemptRunner {
  private readonly js: JetStreamClient;
  private jsm: JetStreamManager | undefined;
  private readonly inFlight = new Map<string, number>();
  /** Messages waiting here for a slot of their endpoint, woken one by one as slots free. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private total = 0;
  private stopping = false;

  constructor(private readonly deps: AttemptRunnerDeps) {
    this.js = jetstream(deps.nc);
  }

  /** Hands back the messages waiting for a slot; the attempts in flight finish. */
  stop(): void {
    this.stopping = true;
    for (const queue of this.waiting.values()) for (const wake of queue) wake();
    this.waiting.clear();
  }

  /** The trace context a scheduled message carries in its body. */
  static traceOf(msg: JsMsg): Record<string, string> | undefined {
    const parsed = WebhookAttemptMessageSchema.shape.trace.safeParse((msg.json() as { trace?: unknown }).trace);
    return parsed.success ? parsed.data : undefined;
  }

  async handle(raw: JsMsg): Promise<HandlerOutcome> {
    const parsed = WebhookAttemptMessageSchema.safeParse(raw.json());
    if (!parsed.success) {
      this.deps.logger.error({ subject: raw.subject, seq: raw.seq }, 'malformed webhook attempt message; dropped');
      return { ack: true };
    }
    const msg = parsed.data;
    // Order within a payment is decided before its first attempt, and before it takes a slot (a
    // read, no request); a message deferred for a slot passed it already. A replay is a new
    // delivery of an old event and goes at once.
    if (msg.run === 1 && msg.attempt === 1 && msg.sequence > 1 && msg.reason !== 'deferred') {
      const hold = await this.orderHold(msg);
      if (hold) {
        await scheduleAttempt(
          this.js,
          { ...msg, reason: 'held', waits: msg.waits + 1, missingSince: hold.missingSince },
          hold.until,
        );
        return { ack: true };
      }
    }
    const origin = originOf(msg.url);
    while (!this.reserve(origin)) {
      if (!this.mayWait(origin)) {
        const at = new Date(Date.now() + waitDelay(msg.waits, DEFER_MAX_MS));
        await scheduleAttempt(this.js, { ...msg, reason: 'deferred', waits: msg.waits + 1 }, at);
        return { ack: true };
      }
      await new Promise<void>((resolve) => this.waiting.set(origin, [...(this.waiting.get(origin) ?? []), resolve]));
      // Stopping: handed back at once, for another replica (or this one, restarted).
      if (this.stopping) return { ack: false, retryInMs: 0 };
      // The wait counts against ack_wait: start its clock again for the attempt itself.
      raw.working();
    }
    let slot = true;
    const freeSlot = () => {
      if (slot) this.release(origin);
      slot = false;
    };
    try {
      return await this.attempt(msg, freeSlot);
    } finally {
      freeSlot();
    }
  }

  /**
   * Whether a message may wait here, unacked, for a slot of its busy endpoint: only a few (as many
   * as the endpoint's slots), so the next ones go the moment a slot frees while a backlog still
   * cannot pile up unacked on the consumer.
   */
  private mayWait(origin: string): boolean {
    return (
      (this.inFlight.get(origin) ?? 0) > 0 &&
      this.total < this.deps.config.WEBHOOK_MAX_IN_FLIGHT &&
      (this.waiting.get(origin)?.length ?? 0) < this.deps.config.WEBHOOK_ENDPOINT_CONCURRENCY
    );
  }

  /** Takes a slot for an attempt to this endpoint, if both limits allow one. */
  private reserve(origin: string): boolean {
    const { config, metrics } = this.deps;
    const busy = this.inFlight.get(origin) ?? 0;
    if (busy >= config.WEBHOOK_ENDPOINT_CONCURRENCY || this.total >= config.WEBHOOK_MAX_IN_FLIGHT) return false;
    this.inFlight.set(origin, busy + 1);
    this.total++;
    metrics.inFlight.inc({ endpoint: origin });
    return true;
  }

  private release(origin: string): void {
    const left = (this.inFlight.get(origin) ?? 1) - 1;
    this.total--;
    if (left > 0) {
      this.inFlight.set(origin, left);
      this.deps.metrics.inFlight.dec({ endpoint: origin });
    } else {
      // An idle endpoint leaves the metric, so its series do not pile up with every merchant ever seen.
      this.inFlight.delete(origin);
      this.deps.metrics.inFlight.remove({ endpoint: origin });
    }
    const queue = this.waiting.get(origin);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(origin);
    next?.();
  }

  /** `freeSlot` gives the endpoint's slot back as soon as the request is over, before the bookkeeping. */
  private async attempt(msg: WebhookAttemptMessage, freeSlot: () => void): Promise<HandlerOutcome> {
    const { logger } = this.deps;
    let secrets: string[];
    try {
      secrets = await this.deps.secrets.secretsOf(msg.storeId);
    } catch (err) {
      // Our outage, not the merchant's: the attempt waits, unclaimed and uncounted.
      logger.warn({ err, eventId: msg.eventId }, 'cannot read the store webhook secrets; attempt postponed');
      await scheduleAttempt(
        this.js,
        { ...msg, reason: 'deferred', waits: msg.waits + 1 },
        new Date(Date.now() + SECRETS_UNAVAILABLE_RETRY_MS),
      );
      return { ack: true };
    }
    let current = msg;
    while (!(await claimAttempt(current))) {
      const next = await this.resume(current);
      if ('ack' in next) return next;
      current = next;
    }
    return this.make(current, secrets, freeSlot);
  }

  /** Makes a claimed attempt and records how it ended. */
  private async make(msg: WebhookAttemptMessage, secrets: string[], freeSlot: () => void): Promise<HandlerOutcome> {
    const { config, metrics } = this.deps;
    const result = await deliver(msg.event, msg.url, secrets, {
      timeoutMs: config.WEBHOOK_TIMEOUT,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
    freeSlot();
    metrics.deliveries.inc({ outcome: result.outcome });
    metrics.duration.observe(result.latencyMs / 1000);
    const delay = result.outcome === 'failure' ? this.deps.schedule[msg.attempt] : undefined;
    const nextAttemptAt = delay === undefined ? null : new Date(Date.now() + withJitter(delay));
    await this.conclude(msg, result, nextAttemptAt, false);
    return { ack: true };
  }

  /**
   * When the payment has an earlier event still pending, or not recorded yet, the time to look
   * again; null when this one may go. The earlier event wakes it when it ends (wakeSuccessor), so
   * the look again is for the rare race where the hold was stored just after that wake-up.
   */
  private async orderHold(msg: WebhookAttemptMessage): Promise<{ until: Date; missingSince: string | null } | null> {
    const now = Date.now();
    const earlier = await earlierDeliveries(msg.paymentId, msg.sequence);
    const lookAgain = now + waitDelay(msg.waits, HOLD_MAX_MS);
    if (earlier.pending.length > 0) {
      // Not before the earlier event's own next attempt: nothing can change until then.
      const next = Math.max(...earlier.pending.map((e) => e.nextAttemptAt?.getTime() ?? 0));
      return { until: new Date(Math.max(lookAgain, next)), missingSince: null };
    }
    if (earlier.recorded < msg.sequence - 1) {
      const missingSince = msg.missingSince ?? new Date(now).toISOString();
      const givesUpAt = Date.parse(missingSince) + MISSING_PREDECESSOR_GRACE_MS;
      if (now < givesUpAt) return { until: new Date(Math.min(lookAgain, givesUpAt)), missingSince };
      this.deps.logger.warn(
        { eventId: msg.eventId, paymentId: msg.paymentId, sequence: msg.sequence },
        'earlier events of the payment never arrived; delivering out of order',
      );
    }
    return null;
  }

  /**
   * The attempt was claimed before: this message is a redelivery (its handler crashed, or its
   * replica stopped or died, or the database went away before the result was recorded). With a
   * result recorded, the steps after it are taken again (each is idempotent); without one, the claim
   * holder may still be at it until the claim lapses, after which the attempt is made again under the
   * next number: returned, for this same message to make, which stays unacked until it is recorded.
   * (Publishing it as a new message instead was one more hop where, in a chaos run, it went missing.)
   */
  private async resume(msg: WebhookAttemptMessage): Promise<HandlerOutcome | WebhookAttemptMessage> {
    const claimed = await findAttempt(msg.eventId, msg.run, msg.attempt);
    if (!claimed) return { ack: true };
    if (claimed.outcome) {
      await this.conclude(msg, { ...claimed, outcome: claimed.outcome }, claimed.nextAttemptAt, true);
      return { ack: true };
    }
    const lapsesAt = claimed.at.getTime() + this.deps.config.WEBHOOK_TIMEOUT + CLAIM_MARGIN_MS;
    if (Date.now() < lapsesAt) return { ack: false, retryInMs: lapsesAt - Date.now() };
    this.deps.logger.warn(
      { eventId: msg.eventId, run: msg.run, attempt: msg.attempt },
      'a webhook attempt was claimed but never finished; making it again',
    );
    return { ...msg, attempt: msg.attempt + 1, reason: 'attempt', waits: 0 };
  }

  /**
   * Records the attempt's result and takes the next step: delivered; or the next attempt
   * scheduled; or dead, with its dead letter published. `again` when redoing these after a crash
   * (the metrics and the log line were already counted).
   */
  private async conclude(
    msg: WebhookAttemptMessage,
    result: AttemptResult,
    nextAttemptAt: Date | null,
    again: boolean,
  ): Promise<void> {
    const { logger, metrics } = this.deps;
    await recordAttemptResult(msg.eventId, msg.run, msg.attempt, result, nextAttemptAt);
    const log = {
      eventId: msg.eventId,
      paymentId: msg.paymentId,
      type: msg.event.body.event,
      endpoint: originOf(msg.url),
      run: msg.run,
      attempt: msg.attempt,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
    };
    if (result.outcome === 'success') {
      await markDelivered(msg.eventId, msg.run, msg.attempt);
      if (!again) logger.info(log, 'webhook delivered');
      await this.wakeSuccessor(msg);
      return;
    }
    if (nextAttemptAt) {
      const next = { ...msg, attempt: msg.attempt + 1, reason: 'attempt' as const, waits: 0, missingSince: null };
      await scheduleAttempt(this.js, next, nextAttemptAt);
      await markRetrying(msg.eventId, msg.run, msg.attempt, nextAttemptAt, result.error);
      if (!again) {
        metrics.retries.inc();
        logger.warn({ ...log, error: result.error, nextAttemptAt }, 'webhook delivery failed; will retry');
      }
      return;
    }
    const reason = result.outcome === 'refused' ? 'refused' : 'exhausted';
    await markDead(msg.eventId, msg.run, msg.attempt, reason, result.error);
    await publishDeadLetter(this.js, msg, reason, result.error);
    if (!again) {
      metrics.deadLetters.inc();
      logger.error({ ...log, error: result.error, reason }, 'webhook delivery dead-lettered');
    }
    await this.wakeSuccessor(msg);
  }

  /**
   * The payment's next event, if it is held waiting for this one, goes now: its hold (a scheduled
   * message on its own subject) is replaced by one that fires at once. Asked of the stream, not of
   * the database. Any later events are held behind that one and are woken by it in turn.
   */
  private async wakeSuccessor(msg: WebhookAttemptMessage): Promise<void> {
    this.jsm ??= await jetstreamManager(this.deps.nc);
    const stored = await this.jsm.streams.getMessage(Streams.webhookAttempts.name, {
      last_by_subj: Subjects.webhookAttemptScheduled(msg.paymentId, msg.sequence + 1),
    });
    const held = stored ? WebhookAttemptMessageSchema.safeParse(stored.json()) : undefined;
    if (held?.success && held.data.reason === 'held') await scheduleAttempt(this.js, held.data, new Date());
  }
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
