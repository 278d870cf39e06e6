import type { PaymentEvent } from '@pix/contracts';
import {
  type AttemptResult,
  type AttemptTarget,
  type Claim,
  type Conclusion,
  type Concluded,
  type DeliveryDoc,
  type DeliveryLogProtocol,
  type DeliveryLogSettings,
  type EarlierDeliveries,
} from '../delivery-log';
import {
  concluded,
  earlierOf,
  holdsLaterEvents,
  newClaim,
  newDelivery,
  nextAttemptOf,
  replayed,
} from '../delivery-log/documents';
import { attemptKey } from '../delivery-log/records';

/**
 * The delivery log in memory, for unit tests of the attempt protocol: the same writes as
 * DeliveryLog, each conditional as its command is (a record once per event; a claim only from the
 * attempt before; a result only on the run's latest claim; a replay and a stall check's postponement
 * only on the delivery as read), building what it stores with the same functions (documents.ts).
 * Each read answers a copy, as a database does. The contract cases hold it and DeliveryLog alike.
 */
export class InMemoryDeliveryLog implements DeliveryLogProtocol {
  private readonly docs = new Map<string, DeliveryDoc>();

  constructor(private readonly settings: DeliveryLogSettings) {}

  /** A delivery as the log holds it (a copy), for a test to look at. */
  find(eventId: string): DeliveryDoc | null {
    const doc = this.docs.get(eventId);
    return doc ? structuredClone(doc) : null;
  }

  async record(event: PaymentEvent, url: string, firstAttemptAt: Date, claimNow: boolean, now = new Date()) {
    if (this.docs.has(event.eventId)) return false;
    this.docs.set(event.eventId, newDelivery(event, url, firstAttemptAt, claimNow, now, this.settings));
    return true;
  }

  async claim(target: AttemptTarget, now = new Date()): Promise<boolean> {
    const doc = this.docs.get(target.eventId);
    if (!doc || doc.run !== target.run || doc.status !== 'pending' || doc.claimed !== target.attempt - 1) return false;
    doc.claimed = target.attempt;
    doc.attempts.push(newClaim(target.run, target.attempt, now, this.settings.leaseMs));
    return true;
  }

  async findClaim(eventId: string, run: number, attempt: number): Promise<{ run: number; claim: Claim | null } | null> {
    const doc = this.find(eventId);
    if (!doc) return null;
    return { run: doc.run, claim: doc.attempts.find((a) => a.key === attemptKey(run, attempt)) ?? null };
  }

  async extendLease(eventId: string, run: number, attempt: number, until: Date): Promise<void> {
    const entry = this.docs.get(eventId)?.attempts.find((a) => a.key === attemptKey(run, attempt));
    if (entry) entry.leaseUntil = until;
  }

  async conclude(
    { eventId, run, attempt }: AttemptTarget,
    result: AttemptResult,
    conclusion: Conclusion,
    now = new Date(),
  ): Promise<Concluded> {
    const doc = this.docs.get(eventId);
    const entry = doc?.attempts.find((a) => a.key === attemptKey(run, attempt));
    if (!doc || !entry || doc.run !== run || doc.claimed !== attempt)
      return { recorded: false, successorWaiting: false };
    const { outcome, statusCode, latencyMs, error } = result;
    Object.assign(entry, { outcome, statusCode, latencyMs, error, nextAttemptAt: nextAttemptOf(conclusion) });
    Object.assign(doc, concluded(attempt, result, conclusion, now, this.settings));
    return { recorded: true, successorWaiting: doc.successorWaiting };
  }

  async earlierDeliveries(paymentId: string, sequence: number): Promise<EarlierDeliveries> {
    return earlierOf(this.ofPayment(paymentId), sequence);
  }

  async delivery(eventId: string): Promise<DeliveryDoc | null> {
    const doc = this.docs.get(eventId);
    return doc ? structuredClone(doc) : null;
  }

  async successorOf(paymentId: string, sequence: number): Promise<DeliveryDoc | null> {
    const next = this.ofPayment(paymentId).find((d) => d.sequence === sequence + 1);
    return next ? structuredClone(next) : null;
  }

  async waitBehind(paymentId: string, sequence: number): Promise<boolean> {
    const pending = this.ofPayment(paymentId).filter((d) => d.sequence < sequence && holdsLaterEvents(d));
    for (const doc of pending) doc.successorWaiting = true;
    return pending.length > 0;
  }

  async startReplay(read: DeliveryDoc, now = new Date()): Promise<boolean> {
    const doc = this.docs.get(read._id);
    if (!doc || doc.status !== read.status || doc.run !== read.run) return false;
    Object.assign(doc, replayed(read, now, this.settings));
    return true;
  }

  async dueForCheck(now: Date, limit: number): Promise<DeliveryDoc[]> {
    return [...this.docs.values()]
      .filter((d) => d.checkAt !== null && d.checkAt <= now)
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  async postponeCheck(read: DeliveryDoc, checkAt: Date): Promise<boolean> {
    const doc = this.docs.get(read._id);
    const sameCheck = doc?.checkAt?.getTime() === read.checkAt?.getTime();
    if (!doc || doc.run !== read.run || doc.status !== 'pending' || !sameCheck) return false;
    Object.assign(doc, { checkAt, stallChecks: read.stallChecks + 1 });
    return true;
  }

  private ofPayment(paymentId: string): DeliveryDoc[] {
    return [...this.docs.values()].filter((d) => d.paymentId === paymentId);
  }
}
