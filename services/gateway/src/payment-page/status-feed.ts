import type { NatsConnection } from '@nats-io/transport-node';
import { pagePhase, PaymentEventSchema, Streams, type PaymentPageUpdate } from '@pix/contracts';
import { followStream } from '@pix/messaging';
import type { Logger } from '@pix/observability';

/** One open page: gets its payment's updates, and is ended when the gateway stops. */
export interface PageListener {
  update(update: PaymentPageUpdate): void;
  end(): void;
}

/**
 * The live status of the payment pages open on this gateway replica, fed by the PAYMENTS stream:
 * the replica follows the stream itself (an ordered consumer from new messages, so every replica
 * sees every event) and hands each event to the pages of its payment. No database is read here; a
 * page gets its starting state from one read when it connects.
 */
export class PaymentStatusFeed {
  private readonly listeners = new Map<string, Set<PageListener>>();
  private follower: { stop: () => Promise<void> } | undefined;
  private stopped = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.follower = followStream(
      this.nc,
      { stream: Streams.payments.name, subjects: Streams.payments.subjects, logger: this.logger },
      (msg) => {
        const parsed = PaymentEventSchema.safeParse(msg.json());
        if (!parsed.success) return;
        const { body, sequence } = parsed.data;
        const pages = this.listeners.get(body.id);
        if (!pages) return;
        // Only expiry leads from pending to not_approved without a Pix (the state machine's table).
        const pixReceived = body.event === 'payment.status_changed' && body.previousStatus !== 'pending';
        const update = { phase: pagePhase(body.status, pixReceived), sequence };
        for (const page of pages) page.update(update);
      },
    );
  }

  /** Registers an open page of a payment; the returned function unregisters it. */
  subscribe(paymentId: string, listener: PageListener): () => void {
    if (this.stopped) {
      listener.end();
      return () => undefined;
    }
    let pages = this.listeners.get(paymentId);
    if (!pages) {
      pages = new Set();
      this.listeners.set(paymentId, pages);
    }
    pages.add(listener);
    return () => {
      pages.delete(listener);
      if (pages.size === 0 && this.listeners.get(paymentId) === pages) this.listeners.delete(paymentId);
    };
  }

  /** Stops following and ends every open page's stream (their browsers reconnect to another replica). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const pages of this.listeners.values()) for (const page of pages) page.end();
    this.listeners.clear();
    await this.follower?.stop();
  }
}
