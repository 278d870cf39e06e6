import { randomUUID } from 'node:crypto';
import type { DeliveryDoc, DeliveryLogProtocol, DeliveryLogSettings } from '../delivery-log';
import { HOOK_URL, paymentEvent } from './events';

/** What a contract case is given: a log, and a way to read a delivery as it holds it. */
export interface ContractSubject {
  log: DeliveryLogProtocol;
  read: (eventId: string) => Promise<DeliveryDoc | null>;
}

export const CONTRACT_SETTINGS: DeliveryLogSettings = {
  retentionMs: 60 * 60_000,
  stallAfterMs: 2 * 60_000,
  leaseMs: 5_000,
};

const SUCCESS = { outcome: 'success' as const, statusCode: 200, latencyMs: 12, error: null };
const FAILURE = { outcome: 'failure' as const, statusCode: 503, latencyMs: 30, error: 'HTTP 503' };

/**
 * The protocol every delivery log keeps (the writes of delivery-log.ts the attempt runner, the stall
 * check and replays make), as cases that run against any of them: the in-memory one in the unit
 * layer (in-memory-delivery-log.test.ts), DeliveryLog on the database in the service layer
 * (tests/service/delivery-log-contract.test.ts). Each case works on payments of its own.
 */
export function describeDeliveryLogContract(make: () => ContractSubject): void {
  let log: DeliveryLogProtocol;
  let read: ContractSubject['read'];
  beforeAll(() => ({ log, read } = make()));

  const recorded = async (sequence = 1, claimNow = false, paymentId: string = randomUUID()) => {
    const event = paymentEvent(paymentId, sequence);
    expect(await log.record(event, HOOK_URL, new Date(), claimNow)).toBe(true);
    return { event, eventId: event.eventId, paymentId };
  };

  it('records a delivery once, its first attempt claimed when asked; a second record writes nothing', async () => {
    const { event, eventId } = await recorded(1, true);
    expect(await log.record({ ...event, sequence: 9 }, 'https://other.example/', new Date(), false)).toBe(false);
    const doc = await read(eventId);
    expect(doc).toMatchObject({ sequence: 1, url: HOOK_URL, status: 'pending', run: 1, claimed: 1 });
    expect(doc?.attempts.map((a) => [a.key, a.outcome])).toEqual([['1:1', null]]);
    const unclaimed = await recorded(1, false);
    expect(await read(unclaimed.eventId)).toMatchObject({ claimed: 0, attempts: [] });
  });

  it('claims each attempt once, from the one before, in the current run only', async () => {
    const { eventId } = await recorded();
    expect(await log.claim({ eventId, run: 1, attempt: 2 })).toBe(false);
    expect(await log.claim({ eventId, run: 2, attempt: 1 })).toBe(false);
    expect(await log.claim({ eventId, run: 1, attempt: 1 })).toBe(true);
    expect(await log.claim({ eventId, run: 1, attempt: 1 })).toBe(false);
    expect(await log.claim({ eventId, run: 1, attempt: 2 })).toBe(true);
    expect(await log.claim({ eventId: `evt_${randomUUID()}`, run: 1, attempt: 1 })).toBe(false);
    expect((await read(eventId))?.attempts.map((a) => a.key)).toEqual(['1:1', '1:2']);
  });

  it('finds a claim with its lease, which its claimant extends; null for a delivery not in the log', async () => {
    const { eventId } = await recorded();
    const at = new Date(Date.now() - 60_000);
    await log.claim({ eventId, run: 1, attempt: 1 }, at);
    const found = await log.findClaim(eventId, 1, 1);
    expect(found?.run).toBe(1);
    expect(found?.claim?.leaseUntil).toEqual(new Date(at.getTime() + CONTRACT_SETTINGS.leaseMs));
    expect(found?.claim?.outcome).toBeNull();
    const until = new Date(Date.now() + 5_000);
    await log.extendLease(eventId, 1, 1, until);
    expect((await log.findClaim(eventId, 1, 1))?.claim?.leaseUntil).toEqual(until);
    expect(await log.findClaim(eventId, 1, 2)).toEqual({ run: 1, claim: null });
    expect(await log.findClaim(`evt_${randomUUID()}`, 1, 1)).toBeNull();
  });

  it("records a result only on the run's latest claim, with what follows it", async () => {
    const { eventId } = await recorded(1, true);
    const retryAt = new Date(Date.now() + 5_000);
    expect(await log.conclude({ eventId, run: 1, attempt: 1 }, FAILURE, { next: 'retry', at: retryAt })).toEqual({
      recorded: true,
      successorWaiting: false,
    });
    expect(await read(eventId)).toMatchObject({ status: 'pending', runAttempts: 1, nextAttemptAt: retryAt });
    expect((await log.findClaim(eventId, 1, 1))?.claim).toMatchObject({ outcome: 'failure', nextAttemptAt: retryAt });
    await log.claim({ eventId, run: 1, attempt: 2 });
    // A late result of attempt 1 (made again since) moves nothing.
    const late = await log.conclude({ eventId, run: 1, attempt: 1 }, SUCCESS, { next: 'delivered' });
    expect(late.recorded).toBe(false);
    const dead = await log.conclude({ eventId, run: 1, attempt: 2 }, FAILURE, { next: 'dead', reason: 'exhausted' });
    expect(dead.recorded).toBe(true);
    const doc = await read(eventId);
    expect(doc).toMatchObject({ status: 'dead', deadReason: 'exhausted', lastError: 'HTTP 503', checkAt: null });
    expect(doc?.expiresAt).not.toBeNull();
    expect(await log.claim({ eventId, run: 1, attempt: 3 })).toBe(false);
  });

  it('tells a later event when the earliest pending delivery waits only for its next retry', async () => {
    const first = await recorded(1, true);
    const { paymentId, eventId } = first;
    await recorded(2, false, paymentId);
    await log.conclude({ eventId, run: 1, attempt: 1 }, FAILURE, { next: 'retry', at: new Date(Date.now() + 60_000) });
    const failedAttemptAt = (await read(eventId))!.attempts[0]!.at;
    expect(await log.earlierDeliveries(paymentId, 3)).toEqual({
      recorded: 2,
      pending: 2,
      waitingForRetry: { eventId, failedAttemptAt },
    });
    // Its retry claimed, it is in flight again: nothing to send ahead.
    await log.claim({ eventId, run: 1, attempt: 2 });
    expect((await log.earlierDeliveries(paymentId, 3)).waitingForRetry).toBeNull();
  });

  it("counts a payment's earlier deliveries, marks the pending ones a later event waits behind, finds one and the next", async () => {
    const first = await recorded(1, true);
    const { paymentId } = first;
    await recorded(2, false, paymentId);
    // The first is in flight (claimed, no result): nothing waits for a retry.
    expect(await log.earlierDeliveries(paymentId, 3)).toEqual({ recorded: 2, pending: 2, waitingForRetry: null });
    expect(await log.earlierDeliveries(paymentId, 2)).toEqual({ recorded: 1, pending: 1, waitingForRetry: null });
    expect(await log.waitBehind(paymentId, 2)).toBe(true);
    expect(await read(first.eventId)).toMatchObject({ successorWaiting: true });
    const finished = await log.conclude({ eventId: first.eventId, run: 1, attempt: 1 }, SUCCESS, {
      next: 'delivered',
    });
    expect(finished).toEqual({ recorded: true, successorWaiting: true });
    expect(await log.earlierDeliveries(paymentId, 2)).toEqual({ recorded: 1, pending: 0, waitingForRetry: null });
    expect(await log.waitBehind(paymentId, 2)).toBe(false);
    expect(await log.delivery(first.eventId)).toMatchObject({ sequence: 1, status: 'delivered' });
    expect(await log.successorOf(paymentId, 1)).toMatchObject({ sequence: 2, status: 'pending', claimed: 0 });
    expect(await log.successorOf(paymentId, 2)).toBeNull();
  });

  it('holds no later event behind a replay: an earlier delivery pending in a later run is not waited for', async () => {
    const first = await recorded(1, true);
    const { paymentId } = first;
    await log.conclude({ eventId: first.eventId, run: 1, attempt: 1 }, SUCCESS, { next: 'delivered' });
    expect(await log.startReplay((await read(first.eventId))!)).toBe(true);
    expect(await read(first.eventId)).toMatchObject({ status: 'pending', run: 2 });
    expect(await log.earlierDeliveries(paymentId, 2)).toEqual({ recorded: 1, pending: 0, waitingForRetry: null });
    expect(await log.waitBehind(paymentId, 2)).toBe(false);
    expect(await read(first.eventId)).toMatchObject({ successorWaiting: false });
  });

  it('starts the next run of a delivery only while it is as read', async () => {
    const { eventId } = await recorded(1, true);
    await log.conclude({ eventId, run: 1, attempt: 1 }, SUCCESS, { next: 'delivered' });
    const finished = (await read(eventId))!;
    expect(await log.startReplay(finished)).toBe(true);
    expect(await log.startReplay(finished)).toBe(false);
    expect(await read(eventId)).toMatchObject({
      status: 'pending',
      run: 2,
      claimed: 0,
      runAttempts: 0,
      earlierRunsAttempts: 1,
      expiresAt: null,
    });
    expect(await log.claim({ eventId, run: 2, attempt: 1 })).toBe(true);
  });

  it('finds the stall checks due, and postpones one only while it is as read', async () => {
    const { eventId } = await recorded();
    const doc = (await read(eventId))!;
    const dueIds = async (now: Date) => (await log.dueForCheck(now, 10_000)).map((d) => d._id);
    expect(await dueIds(new Date(doc.checkAt!.getTime() - 1))).not.toContain(eventId);
    expect(await dueIds(doc.checkAt!)).toContain(eventId);
    const later = new Date(doc.checkAt!.getTime() + 60_000);
    expect(await log.postponeCheck(doc, later)).toBe(true);
    expect(await log.postponeCheck(doc, later)).toBe(false);
    expect(await read(eventId)).toMatchObject({ checkAt: later, stallChecks: 1 });
  });
}
