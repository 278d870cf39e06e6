import type { Msg, NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node';
import {
  pagePhase,
  PaymentEventSchema,
  Streams,
  Subjects,
  type PaymentEvent,
  type PaymentPageUpdate,
} from '@pix/contracts';
import type { Logger } from '@pix/observability';
import type { FactGate } from '@pix/runtime';

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

/** How long the replica keeps its subscription after its last page or dashboard closed. */
const LINGER_MS = 30_000;
/** How long a new listener waits for the subscription to be in place (NATS away): then its page answers 503. */
const READY_TIMEOUT_MS = 5_000;

/**
 * A registered listener: `ready` resolves once every event published from then on reaches it, and
 * rejects when the stream cannot be followed in time.
 */
export interface Subscription {
  ready: Promise<void>;
  unsubscribe: () => void;
}

/**
 * The live status of the payment pages (and the dashboards) open on this gateway replica, fed by
 * the PAYMENTS stream's feed (the stream republishes each event it stores, streams.ts): while any
 * is open (and a while after the last one closed), the replica subscribes to the feed (no queue
 * group, so every replica sees every event) and hands each event to the pages of its payment. With
 * none open it subscribes to nothing, so a replica nobody watches costs no message per payment
 * event. No database is read here; a page gets its starting state from one read when it connects,
 * once its subscription is `ready`. The feed is delivered at most once: after a NATS reconnection
 * events may have been missed, so every open page and dashboard is ended, and their browsers
 * reconnect and read their state again.
 */
export class PaymentStatusFeed {
  private readonly listeners = new Map<string, Set<PageListener>>();
  private readonly storeListeners = new Map<string, Set<StoreListener>>();
  private subscription: NatsSubscription | undefined;
  /** Resolves once the current subscription is in place on the server. */
  private following: Promise<void> | undefined;
  private idle: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    /** What payments signed reaches a page or a dashboard; a refused event is counted and logged only. */
    private readonly facts: FactGate,
  ) {
    void (async () => {
      for await (const status of nc.status()) if (status.type === 'reconnect') this.endAll();
    })();
  }

  /** Registers an open page of a payment. */
  subscribe(paymentId: string, listener: PageListener): Subscription {
    return this.watch(register(this.listeners, paymentId, listener, this.stopped));
  }

  /** Registers an open dashboard of a store. */
  subscribeStore(storeId: string, listener: StoreListener): Subscription {
    return this.watch(register(this.storeListeners, storeId, listener, this.stopped));
  }

  /** Stops following and ends every open page's stream (their browsers reconnect to another replica). */
  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.idle);
    this.endAll();
    this.subscription?.unsubscribe();
    return Promise.resolve();
  }

  /** Ends every open page's and dashboard's stream: their browsers reconnect and read their state again. */
  private endAll(): void {
    for (const pages of this.listeners.values()) for (const page of pages) page.end();
    for (const dashboards of this.storeListeners.values()) for (const dashboard of dashboards) dashboard.end();
    this.listeners.clear();
    this.storeListeners.clear();
  }

  private watch(unregister: () => void): Subscription {
    if (this.stopped) return { ready: Promise.resolve(), unsubscribe: unregister };
    clearTimeout(this.idle);
    this.idle = undefined;
    this.following ??= this.follow();
    return {
      ready: inTime(this.following, READY_TIMEOUT_MS),
      unsubscribe: () => {
        unregister();
        if (this.listeners.size === 0 && this.storeListeners.size === 0) this.lingerThenStop();
      },
    };
  }

  private follow(): Promise<void> {
    const subscription = this.nc.subscribe(Subjects.paymentEventsFeedAll, {
      callback: (err, msg) => {
        if (err) this.logger.warn({ err }, 'payment events feed failed');
        else this.deliver(msg);
      },
    });
    this.subscription = subscription;
    return this.nc.flush().catch((err: unknown) => {
      // Not in place: the next listener subscribes again.
      subscription.unsubscribe();
      if (this.subscription === subscription) [this.subscription, this.following] = [undefined, undefined];
      throw err;
    });
  }

  private lingerThenStop(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.listeners.size > 0 || this.storeListeners.size > 0) return;
      this.subscription?.unsubscribe();
      this.subscription = undefined;
      this.following = undefined;
    }, LINGER_MS);
    this.idle.unref();
  }

  private deliver(msg: Msg): void {
    // Only the stream's republish: an answer that this identity asked onto the feed's subject comes
    // back into its own account there too (a direct get of its bucket names KV_AUTH, an RPC answer
    // names no stream).
    if (msg.headers?.get('Nats-Stream') !== Streams.payments.name) return;
    // payments signed the event on the subject it published (the republish's Nats-Subject), not the feed's.
    const published = { subject: msg.headers.get('Nats-Subject'), headers: msg.headers, data: msg.data };
    if (!this.facts.admitNow(published, { stream: Streams.payments.name })) return;
    const parsed = PaymentEventSchema.safeParse(safeJson(msg));
    if (!parsed.success) return;
    const event = parsed.data;
    for (const dashboard of this.storeListeners.get(event.storeId) ?? []) dashboard.event(event);
    const { body, sequence, cause } = event;
    // A page shows the payment's status: a refund's events leave it as it is.
    if (body.event !== 'payment.created' && body.event !== 'payment.status_changed') return;
    const pages = this.listeners.get(event.paymentId);
    if (!pages) return;
    // Only expiry and a cancel lead from pending to not_approved without a Pix (the state machine's table).
    const pixReceived = body.event === 'payment.status_changed' && body.previousStatus !== 'pending';
    const update = { phase: pagePhase(body.status, pixReceived, cause === 'cancel'), sequence };
    for (const page of pages) page.update(update);
  }
}

/** A message's JSON body, or undefined when it is none. */
function safeJson(msg: Msg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}

/** `promise`, or a rejection once `ms` have passed. */
function inTime(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the payment events stream is not followed')), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
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
