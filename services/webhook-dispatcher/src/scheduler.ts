import type { NatsConnection } from '@nats-io/transport-node';
import { Subjects, WebhookSecretsReplySchema } from '@pix/contracts';
import { callRpc, jetstream, type JetStreamClient } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import type { Config } from './config';
import { publishDeadLetter } from './dead-letters';
import { AttemptModel, DeliveryModel, isDuplicateKey, type DeliveryDoc } from './deliveries';
import { deliver } from './deliver';
import type { DispatcherMetrics } from './metrics';
import { withJitter } from './schedule';

/** A claimed attempt lapses this long after its timeout, for another replica to take over. */
const CLAIM_MARGIN_MS = 60_000;
/** How long an attempt waits when the store's secrets cannot be read (the gateway is away). */
const SECRETS_UNAVAILABLE_RETRY_MS = 5_000;
/**
 * How long a delivery waits for an earlier event of its payment that has not been recorded yet
 * (its stream message is being redelivered). After that it goes anyway, rather than never.
 */
const MISSING_PREDECESSOR_GRACE_MS = 10 * 60_000;
const MISSING_PREDECESSOR_RECHECK_MS = 1_000;

export interface SchedulerDeps {
  nc: NatsConnection;
  config: Config;
  schedule: number[];
  logger: Logger;
  metrics: DispatcherMetrics;
}

/**
 * Sends due attempts, claimed so that any number of replicas never send one attempt twice.
 * Attempts run concurrently, at most WEBHOOK_ENDPOINT_CONCURRENCY per endpoint and
 * WEBHOOK_MAX_IN_FLIGHT in all, and due work is taken endpoint by endpoint, so one endpoint's
 * backlog never hides another's. A payment's events go in sequence order.
 */
export class DeliveryScheduler {
  private readonly loop: Periodic;
  private readonly js: JetStreamClient;
  private readonly inFlight = new Map<string, number>();
  private readonly tasks = new Set<Promise<void>>();
  private turn = 0;

  constructor(private readonly deps: SchedulerDeps) {
    this.js = jetstream(deps.nc);
    this.loop = new Periodic(
      () => this.pass(),
      deps.config.WEBHOOK_POLL_INTERVAL,
      (err) => deps.logger.error({ err }, 'webhook scheduling pass failed'),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due work now (a new delivery was recorded, or a slot freed up). */
  poke(): void {
    this.loop.poke();
  }

  /** Stops claiming and waits for the attempts in flight (each ends by WEBHOOK_TIMEOUT). */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all(this.tasks);
  }

  private get total(): number {
    return this.tasks.size;
  }

  /** How many more attempts this endpoint may have in flight now. */
  private room(origin: string): number {
    return Math.max(0, this.deps.config.WEBHOOK_ENDPOINT_CONCURRENCY - (this.inFlight.get(origin) ?? 0));
  }

  /**
   * One look for due work, endpoint by endpoint: each endpoint with due attempts gets the slots it
   * has free, so a long backlog at one endpoint (even a fast-failing one) never sits in front of
   * another endpoint's work. The starting endpoint rotates, so when WEBHOOK_MAX_IN_FLIGHT is the
   * limit every endpoint still gets its turn.
   */
  private async pass(): Promise<void> {
    const { config } = this.deps;
    const now = new Date();
    const saturated = [...this.inFlight.keys()].filter((origin) => this.room(origin) === 0);
    const origins = (await DeliveryModel.distinct('origin', {
      status: 'pending',
      nextAttemptAt: { $lte: now },
      origin: { $nin: saturated },
    })) as string[];
    const start = this.turn++ % Math.max(origins.length, 1);
    for (const origin of [...origins.slice(start), ...origins.slice(0, start)]) {
      const room = Math.min(this.room(origin), config.WEBHOOK_MAX_IN_FLIGHT - this.total);
      if (room <= 0) continue;
      const due = await DeliveryModel.find({ status: 'pending', nextAttemptAt: { $lte: now }, origin })
        .sort({ nextAttemptAt: 1 })
        .limit(room)
        .lean<DeliveryDoc[]>();
      for (const doc of due) {
        if (this.room(origin) === 0 || this.total >= config.WEBHOOK_MAX_IN_FLIGHT) break;
        const holdUntil = await this.orderHold(doc, now);
        if (holdUntil) {
          await DeliveryModel.updateOne(claimFilter(doc), { $set: { nextAttemptAt: holdUntil, heldForOrder: true } });
          continue;
        }
        if (await this.claim(doc)) this.launch(doc, doc.attempts + 1);
      }
    }
  }

  /**
   * Claims the delivery's next attempt. First a conditional update moves the due time to the end
   * of the claim (on MongoDB that alone decides). FerretDB 1.24 on SQLite does not apply an update's
   * filter atomically (it queries, then writes), so two replicas can both "win" it; it sets rather
   * than increments, so both write the same values, and the attempt's log entry, inserted under its
   * unique id eventId:run:attempt, breaks the tie: exactly one insert succeeds.
   */
  private async claim(doc: DeliveryDoc): Promise<boolean> {
    const attempt = doc.attempts + 1;
    const leaseEnd = new Date(Date.now() + this.deps.config.WEBHOOK_TIMEOUT + CLAIM_MARGIN_MS);
    const claimed = await DeliveryModel.updateOne(claimFilter(doc), {
      $set: { nextAttemptAt: leaseEnd, heldForOrder: false, attempts: attempt },
    });
    if (claimed.modifiedCount !== 1) return false;
    try {
      await AttemptModel.create({
        _id: attemptId(doc, attempt),
        eventId: doc._id,
        paymentId: doc.paymentId,
        run: doc.run,
        attempt,
        at: new Date(),
        expiresAt: new Date(Date.now() + this.deps.config.WEBHOOK_LOG_RETENTION),
      });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /**
   * When a delivery must wait for an earlier event of its payment: until that one's next attempt
   * while it is pending (its completion wakes this one sooner), or briefly while it is not
   * recorded yet. Null when it may go now.
   */
  private async orderHold(doc: DeliveryDoc, now: Date): Promise<Date | null> {
    if (doc.sequence <= 1) return null;
    const earlier = await DeliveryModel.find({ paymentId: doc.paymentId, sequence: { $lt: doc.sequence } })
      .select({ status: 1, nextAttemptAt: 1 })
      .lean<Pick<DeliveryDoc, 'status' | 'nextAttemptAt'>[]>();
    const pendingUntil = earlier
      .filter((e) => e.status === 'pending')
      .map((e) => e.nextAttemptAt?.getTime() ?? now.getTime());
    if (pendingUntil.length > 0) {
      return new Date(Math.max(now.getTime() + this.deps.config.WEBHOOK_POLL_INTERVAL, ...pendingUntil));
    }
    if (earlier.length < doc.sequence - 1) {
      if (now.getTime() - doc.createdAt.getTime() < MISSING_PREDECESSOR_GRACE_MS) {
        return new Date(now.getTime() + MISSING_PREDECESSOR_RECHECK_MS);
      }
      this.deps.logger.warn(
        { eventId: doc._id, paymentId: doc.paymentId, sequence: doc.sequence },
        'earlier events of the payment never arrived; delivering out of order',
      );
    }
    return null;
  }

  private launch(doc: DeliveryDoc, attempt: number): void {
    const { origin } = doc;
    this.inFlight.set(origin, (this.inFlight.get(origin) ?? 0) + 1);
    this.deps.metrics.inFlight.inc({ endpoint: origin });
    const task = this.attempt(doc, attempt)
      .catch((err: unknown) =>
        // The claim lapses and the attempt is made again: delayed, not lost.
        this.deps.logger.error({ err, eventId: doc._id, attempt }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        const left = (this.inFlight.get(origin) ?? 1) - 1;
        if (left > 0) {
          this.inFlight.set(origin, left);
          this.deps.metrics.inFlight.dec({ endpoint: origin });
        } else {
          // An idle endpoint leaves the metric, so its series do not pile up with every merchant ever seen.
          this.inFlight.delete(origin);
          this.deps.metrics.inFlight.remove({ endpoint: origin });
        }
        this.tasks.delete(task);
        this.poke();
      });
    this.tasks.add(task);
  }

  private async attempt(doc: DeliveryDoc, attempt: number): Promise<void> {
    const { config, logger, metrics } = this.deps;
    const mine = { _id: doc._id, status: 'pending', run: doc.run, attempts: attempt };
    let secrets: string[];
    try {
      ({ secrets } = await callRpc(
        this.deps.nc,
        Subjects.storesWebhookSecrets,
        { storeId: doc.storeId },
        WebhookSecretsReplySchema,
      ));
    } catch (err) {
      // Our outage, not the merchant's: the attempt is given back (log entry first, so that a crash
      // in between leaves a lapsing claim rather than an attempt number that can never be claimed).
      logger.warn({ err, eventId: doc._id }, 'cannot read the store webhook secrets; attempt postponed');
      await AttemptModel.deleteOne({ _id: attemptId(doc, attempt) });
      await DeliveryModel.updateOne(mine, {
        $set: { attempts: attempt - 1, nextAttemptAt: new Date(Date.now() + SECRETS_UNAVAILABLE_RETRY_MS) },
      });
      return;
    }

    const result = await deliver(doc.event, doc.url, secrets, {
      timeoutMs: config.WEBHOOK_TIMEOUT,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
    metrics.deliveries.inc({ outcome: result.outcome });
    metrics.duration.observe(result.latencyMs / 1000);
    await AttemptModel.updateOne({ _id: attemptId(doc, attempt) }, { $set: result });

    const log = {
      eventId: doc._id,
      paymentId: doc.paymentId,
      type: doc.event.body.event,
      endpoint: doc.origin,
      run: doc.run,
      attempt,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
    };
    const expiresAt = new Date(Date.now() + config.WEBHOOK_LOG_RETENTION);
    if (result.outcome === 'success') {
      await DeliveryModel.updateOne(mine, {
        $set: { status: 'delivered', nextAttemptAt: null, lastError: null, expiresAt },
      });
      logger.info(log, 'webhook delivered');
      await this.wakeSuccessors(doc);
      return;
    }
    const nextDelay = result.outcome === 'refused' ? undefined : this.deps.schedule[attempt];
    if (nextDelay !== undefined) {
      const nextAttemptAt = new Date(Date.now() + withJitter(nextDelay));
      await DeliveryModel.updateOne(mine, { $set: { nextAttemptAt, lastError: result.error } });
      metrics.retries.inc();
      logger.warn({ ...log, error: result.error, nextAttemptAt }, 'webhook delivery failed; will retry');
      return;
    }
    const deadReason = result.outcome === 'refused' ? 'refused' : 'exhausted';
    const dead = await DeliveryModel.findOneAndUpdate(
      mine,
      {
        $set: {
          status: 'dead',
          deadReason,
          lastError: result.error,
          nextAttemptAt: null,
          deadLetteredAt: null,
          expiresAt,
        },
      },
      { new: true },
    ).lean<DeliveryDoc>();
    if (!dead) return;
    metrics.deadLetters.inc();
    logger.error({ ...log, error: result.error, reason: deadReason }, 'webhook delivery dead-lettered');
    await this.wakeSuccessors(doc);
    await publishDeadLetter(this.js, dead);
  }

  /** The payment's later events held for this one may go now. */
  private async wakeSuccessors(doc: DeliveryDoc): Promise<void> {
    await DeliveryModel.updateMany(
      { paymentId: doc.paymentId, status: 'pending', heldForOrder: true, sequence: { $gt: doc.sequence } },
      { $set: { nextAttemptAt: new Date(), heldForOrder: false } },
    );
  }
}

/** The attempt's log entry, which is also its claim. */
function attemptId(doc: DeliveryDoc, attempt: number): string {
  return `${doc._id}:${doc.run}:${attempt}`;
}

/** The delivery exactly as read: a claim or a hold succeeds only if nobody changed it since. */
function claimFilter(doc: DeliveryDoc) {
  return {
    _id: doc._id,
    status: 'pending',
    run: doc.run,
    attempts: doc.attempts,
    nextAttemptAt: doc.nextAttemptAt,
  };
}
