/**
 * The payments' events this replica is taking in and has not finished with (recorded and attempted,
 * or handed to WEBHOOK_ATTEMPTS), so that a later event of a payment waits a moment for the earlier
 * ones in hand before it decides its order.
 *
 * Events of a payment that arrive together (a burst after payments' publishes waited out a NATS
 * election) are taken in at once; without the wait, a later one finds its predecessor not recorded
 * yet and waits for it on a scheduled look, which a stream's new leader may fire seconds late. After
 * it, the later event finds its predecessor finished (and goes without a read) or pending (and marks
 * it to be woken). The wait is bounded, because the earlier event's attempt may be at a slow
 * endpoint, and a later event waiting holds one of the intake's places: it then goes on and is held
 * behind the pending one as before. Events of one payment taken in by two replicas do not see each
 * other here; they meet the hold.
 */
export class EventsInHand {
  private readonly byPayment = new Map<string, Map<number, Promise<void>>>();

  /** Notes an event taken in; the function answered says it is done with (call it in any case). */
  begin(paymentId: string, sequence: number): () => void {
    let end: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (end = resolve));
    let events = this.byPayment.get(paymentId);
    if (!events) this.byPayment.set(paymentId, (events = new Map()));
    events.set(sequence, done);
    const inHand = events;
    return () => {
      end();
      // A second copy of the event (redelivered while the first was in hand) replaced this entry.
      if (inHand.get(sequence) === done) inHand.delete(sequence);
      if (inHand.size === 0 && this.byPayment.get(paymentId) === inHand) this.byPayment.delete(paymentId);
    };
  }

  /** Resolves once the payment's events before `sequence` in hand are done with, or after `maxMs`. */
  async earlierDone(paymentId: string, sequence: number, maxMs: number): Promise<void> {
    const events = this.byPayment.get(paymentId);
    const earlier = events ? [...events].filter(([s]) => s < sequence).map(([, done]) => done) : [];
    if (earlier.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
    try {
      await Promise.race([Promise.all(earlier), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
