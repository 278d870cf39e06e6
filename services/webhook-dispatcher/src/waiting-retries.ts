import type { WebhookAttemptMessage } from '@pix/contracts';

interface Waiting {
  endpoint: string;
  msg: WebhookAttemptMessage;
  at: number;
}

/**
 * The retries this replica scheduled, by endpoint (URL origin), until they are due: what it brings
 * forward when that endpoint answers 2xx again (attempts.ts). Memory only, and bounded: a retry
 * forgotten (this replica restarted, or more were waiting than it keeps) goes at its scheduled time,
 * as every retry did before; one remembered after it was made (by another replica) costs a message
 * whose attempt is found made already.
 */
export class WaitingRetries {
  /** Oldest first, for the bound. */
  private readonly byEvent = new Map<string, Waiting>();
  private readonly byEndpoint = new Map<string, Set<string>>();

  /** At most this many (each holds its event, a few KiB at most): about 10 MB. */
  constructor(private readonly limit = 5_000) {}

  /** The retry `msg` (its event's next attempt) to `endpoint`, scheduled for `at`. */
  add(endpoint: string, msg: WebhookAttemptMessage, at: Date): void {
    this.forget(msg.eventId);
    if (this.byEvent.size >= this.limit) {
      const oldest = this.byEvent.keys().next();
      if (!oldest.done) this.forget(oldest.value);
    }
    this.byEvent.set(msg.eventId, { endpoint, msg, at: at.getTime() });
    let events = this.byEndpoint.get(endpoint);
    if (!events) this.byEndpoint.set(endpoint, (events = new Set()));
    events.add(msg.eventId);
  }

  /** The event's attempt is being made or handled here: nothing of it waits any more. */
  forget(eventId: string): void {
    const waiting = this.byEvent.get(eventId);
    if (!waiting) return;
    this.byEvent.delete(eventId);
    const events = this.byEndpoint.get(waiting.endpoint);
    events?.delete(eventId);
    if (events?.size === 0) this.byEndpoint.delete(waiting.endpoint);
  }

  /**
   * Up to `count` of the endpoint's retries still due after `dueAfter` (ms), oldest first, taken
   * out; those due sooner are let go too, since their schedule is about to fire anyway.
   */
  take(endpoint: string, count: number, dueAfter: number): WebhookAttemptMessage[] {
    const taken: WebhookAttemptMessage[] = [];
    for (const eventId of this.byEndpoint.get(endpoint) ?? []) {
      if (taken.length === count) break;
      const waiting = this.byEvent.get(eventId);
      this.forget(eventId);
      if (waiting && waiting.at > dueAfter) taken.push(waiting.msg);
    }
    return taken;
  }

  /** How many retries are remembered. */
  get size(): number {
    return this.byEvent.size;
  }
}
