/**
 * How many payments' finished events a replica remembers: the payments whose events it delivered in
 * the last few minutes at the rates measured, which is when their next event (a confirmation, an
 * expiry) mostly comes.
 */
const REMEMBERED_PAYMENTS = 10_000;

/**
 * The payments' events whose deliveries this replica finished itself (delivered or dead-lettered),
 * as far as they run without a gap from a payment's first event. A later event of such a payment
 * has nothing before it to wait for, so its order is decided without reading the log. What is not
 * remembered (another replica finished an event, the replica restarted, the payment was forgotten
 * to make room) is read from the log as before. A finished delivery never becomes pending again in
 * its run, and a replay (a later run) holds no later event (docs/webhooks.md), so what is
 * remembered stays true.
 */
export class FinishedEvents {
  /** Per payment, the last event of the gapless run from its first one finished here; oldest first. */
  private readonly through = new Map<string, number>();

  constructor(private readonly capacity = REMEMBERED_PAYMENTS) {}

  /** Whether every event of the payment before `sequence` is known to be finished. */
  allBefore(paymentId: string, sequence: number): boolean {
    return (this.through.get(paymentId) ?? 0) >= sequence - 1;
  }

  /** The delivery of the payment's event `sequence` finished here. */
  finished(paymentId: string, sequence: number): void {
    if ((this.through.get(paymentId) ?? 0) !== sequence - 1) return;
    this.through.delete(paymentId);
    this.through.set(paymentId, sequence);
    if (this.through.size > this.capacity) this.through.delete(this.through.keys().next().value as string);
  }
}
