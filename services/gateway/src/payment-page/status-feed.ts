import type { NatsConnection } from '@nats-io/transport-node';
import { pagePhase, PaymentEventSchema, Streams, type PaymentEvent, type PaymentPageUpdate } from '@pix/contracts';
import { followStream } from '@pix/messaging';
import type { Logger } from '@pix/observability';

/** One open page: gets its payment's updates, and is ended when the gateway stops. */
export interface PageListener {
  update(update: PaymentPageUpdate): void;
  end(): void;
}

/** One open dashboard: gets every event of its store's payments, and is ended when the gateway stops. */
export interface StoreListener {
  event(event: PaymentEvent): void;
  end(): void;
}

/**
 * The live status of the payment pages (and the dashboards) open on this gateway replica, fed by the PAYMENTS stream:
 * the replica follows the stream itself (an ordered consumer from new messages, so every replica
 * sees every event) and hands each event to the pages of its payment. No database is read here; a
 * page gets its starting state from one read when it connects.
 */
export class PaymentStatusFeed {
  private readonly listeners = new Map<string, Set<PageListener>>();
  private readonly storeListeners = new Map<string, Set<StoreListener>>();
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
        for (const dashboard of this.storeListeners.get(body.storeId) ?? []) dashboard.event(parsed.data);
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
    return register(this.listeners, paymentId, listener, this.stopped);
  }

  /** Registers an open dashboard of a store; the returned function unregisters it. */
  subscribeStore(storeId: string, listener: StoreListener): () => void {
    return register(this.storeListeners, storeId, listener, this.stopped);
  }

  /** Stops following and ends every open page's stream (their browsers reconnect to another replica). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const pages of this.listeners.values()) for (const page of pages) page.end();
    for (const dashboards of this.storeListeners.values()) for (const dashboard of dashboards) dashboard.end();
    this.listeners.clear();
    this.storeListeners.clear();
    await this.follower?.stop();
  }
}

/** Adds a listener under its key; the returned function removes it (and the key once empty). */
function register<L extends { end(): void }>(
  map: Map<string, Set<L>>,
  key: string,
  listener: L,
  stopped: boolean,
): () => void {
  if (stopped) {
    listener.end();
    return () => undefined;
  }
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  const mine = set;
  mine.add(listener);
  return () => {
    mine.delete(listener);
    if (mine.size === 0 && map.get(key) === mine) map.delete(key);
  };
}
