import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { GatewayRpc, modeScope, Subjects, WebhookSecretsRotatedSchema } from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { Logger } from '@pix/observability';

/**
 * Bounds how long a cached set may be used without a notice: a rotation whose notice was lost (the
 * gateway stopped between its write and the publish) reaches deliveries within this time, and a
 * secret past its 24-hour overlap stops signing within it too.
 */
export const SECRETS_MAX_AGE_MS = 10 * 60_000;

interface Entry {
  secrets: string[];
  fetchedAt: number;
}

/**
 * The stores' signing secrets, asked of the gateway once per store and mode and then kept (each
 * mode signs with its own secrets: a live payment's deliveries with the live ones). The gateway
 * publishes a core NATS notice after every rotation (Subjects.storesWebhookSecretsRotated); every
 * replica drops that store's entry, so the next delivery asks again. Notices missed while
 * disconnected are covered by dropping everything on reconnect. A fetch that was under way when a
 * notice arrived is not kept (it may predate the rotation).
 */
export class SecretsCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every notice of a store: a fetch keeps its answer only if nothing came meanwhile. */
  private readonly generations = new Map<string, number>();
  /** Bumped on every reconnect, when notices may have been missed for any store. */
  private epoch = 0;
  private subscription: Subscription | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Listens for rotation notices (and reconnects); resolves once the server knows the subscription. */
  async start(): Promise<void> {
    this.subscription = this.nc.subscribe(Subjects.storesWebhookSecretsRotated, {
      callback: (err, msg) => {
        if (err) return;
        const notice = WebhookSecretsRotatedSchema.safeParse(msg.json());
        if (notice.success) this.forget(notice.data.storeId);
        else this.logger.warn({ subject: msg.subject }, 'unreadable secrets rotation notice ignored');
      },
    });
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type === 'reconnect') this.forgetAll();
      }
    })();
    await this.nc.flush();
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  /** The store's current secrets of the mode; asks the gateway when they are not cached (throws if it cannot answer). */
  async secretsOf(storeId: string, livemode: boolean): Promise<string[]> {
    const key = modeScope(storeId, livemode);
    const cached = this.entries.get(key);
    if (cached && this.now() - cached.fetchedAt < SECRETS_MAX_AGE_MS) return cached.secrets;
    const version = this.versionOf(storeId);
    const fetchedAt = this.now();
    const { secrets } = await callRpc(this.nc, GatewayRpc.webhookSecrets, { storeId, livemode });
    if (this.versionOf(storeId) === version) this.entries.set(key, { secrets, fetchedAt });
    return secrets;
  }

  /** A rotation notice names the store: its secrets of both modes are asked again. */
  forget(storeId: string): void {
    this.generations.set(storeId, (this.generations.get(storeId) ?? 0) + 1);
    this.entries.delete(modeScope(storeId, false));
    this.entries.delete(modeScope(storeId, true));
  }

  private forgetAll(): void {
    this.epoch++;
    this.entries.clear();
  }

  private versionOf(storeId: string): string {
    return `${this.epoch}.${this.generations.get(storeId) ?? 0}`;
  }
}
