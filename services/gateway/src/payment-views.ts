import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { PaymentViewSchema, PaymentViewsBucket, type Payment } from '@pix/contracts';
import { jetstream, retrySetup } from '@pix/messaging';
import { Counter, type Logger, type Registry } from '@pix/observability';

/**
 * How long a get waits for the bucket before it asks payments instead: a view is worth having only
 * while it is quicker than the database read it saves.
 */
const READ_TIMEOUT_MS = 1000;

/** Why a get was, or was not, answered from its view. */
type Outcome = 'hit' | 'absent' | 'unreadable' | 'unavailable';
const OUTCOMES: readonly Outcome[] = ['hit', 'absent', 'unreadable', 'unavailable'];

/** A token's store and mode: the only payments its gets may see. */
export interface ViewScope {
  storeId: string;
  livemode: boolean;
}

/**
 * The payments' read model as the gateway reads it (docs/decisions/payment-read-model.md): a get
 * of a store's payment is answered from its view in the PAYMENT_VIEWS bucket, which payments writes
 * before it publishes a change or answers for it, so a get that follows a create's or a change's
 * answer finds that change or a later one. Each get reads the stream leader (not a direct get, which
 * a replica that is behind may answer), and holds nothing in memory. No view (none yet, expired,
 * another store's or mode's id, the bucket away) is undefined: the caller asks payments, which reads
 * the database.
 */
export class PaymentViews {
  private readonly reads: Counter<'outcome'>;
  /** Whether the last read failed: a failure is logged when a spell of them begins. */
  private away = false;

  constructor(
    private readonly kv: KV,
    private readonly logger: Logger,
    registry: Registry,
  ) {
    this.reads = new Counter({
      name: 'payment_view_reads_total',
      help: 'Payment gets by where they were answered from: hit (the view), or why not (absent, unreadable, unavailable: then payments read the database)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of OUTCOMES) this.reads.inc({ outcome }, 0);
  }

  /** Opens the bucket, which the provisioning step creates (a replica started before it waits for it). */
  static async open(nc: NatsConnection, logger: Logger, registry: Registry): Promise<PaymentViews> {
    const kv = await retrySetup(
      'payment views bucket',
      async () => {
        const bucket = await new Kvm(jetstream(nc, { timeout: READ_TIMEOUT_MS })).open(PaymentViewsBucket.name);
        await bucket.status(); // opening checks nothing; this fails while the bucket is missing
        return bucket;
      },
      logger,
    );
    return new PaymentViews(kv, logger, registry);
  }

  /** The store's payment `id` in the token's mode as its view shows it, or undefined when there is no view to trust. */
  async read(scope: ViewScope, id: string): Promise<Payment | undefined> {
    const key = PaymentViewsBucket.key(scope.storeId, scope.livemode, id);
    if (key === undefined) return this.miss('absent');
    let entry;
    try {
      entry = await this.kv.get(key);
      this.away = false;
    } catch (err) {
      // Once per spell: while the bucket is away every get would say the same.
      if (!this.away) this.logger.warn({ err }, 'payment views bucket unreadable; payments answers gets meanwhile');
      this.away = true;
      return this.miss('unavailable');
    }
    if (!entry || entry.operation !== 'PUT') return this.miss('absent');
    const view = PaymentViewSchema.safeParse(safeJson(() => entry.json()));
    // The key names the store and mode; the view must say the same (a check that costs nothing).
    const payment = view.success ? view.data.payment : undefined;
    if (!payment || payment.id !== id || payment.storeId !== scope.storeId || payment.livemode !== scope.livemode) {
      return this.miss('unreadable');
    }
    this.reads.inc({ outcome: 'hit' });
    return payment;
  }

  private miss(outcome: Exclude<Outcome, 'hit'>): undefined {
    this.reads.inc({ outcome });
    return undefined;
  }
}

function safeJson(json: () => unknown): unknown {
  try {
    return json();
  } catch {
    return undefined;
  }
}
