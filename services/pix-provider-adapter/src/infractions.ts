import type { ModeName } from '@pix/contracts';
import { publishEvent, withTraceCarrier, type JetStreamClient } from '@pix/messaging';
import type { Counter, Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import { factsFromInfraction } from './api-pix/transformers';
import type { InfractionAtPsp, InfractionProvider, PixProvider } from './providers/provider';
import { nextWindow, doneRecently, type ReconciliationSettings } from './reconciliation';
import type { ReconciliationCursor } from './reconciliation-cursor';
import type { ToldFacts } from './told-facts';

/** Each by connection. */
export interface InfractionMetrics {
  /** Dispute facts a reading added (an infraction opened or decided the payments had not heard of). */
  told: Counter<'connection' | 'kind'>;
  /** Runs by outcome: completed, failed (read again next time), skipped, unsupported (the PSP has no infractions). */
  runs: Counter<'connection' | 'outcome'>;
  /** Infractions against a Pix the PSP does not hold for a charge (none, or paid to no charge of the platform's). */
  unknownPix: Counter<'connection'>;
}

/** The connection whose infractions are read: its PSP (its Pix, to name each one's charge), and the mode its facts are of. */
export interface InfractionConnection {
  name: ModeName;
  livemode: boolean;
  provider: PixProvider & InfractionProvider;
}

/**
 * The infractions (MED claims) a PSP reports against the Pix it received, read the way the
 * reconciliation reads the Pix (reconciliation.ts): every interval, a window from this connection's
 * own cursor (less an overlap) to now, every page, the cursor moved only once all were told. Each
 * infraction becomes a signed fact on the PIX stream (dispute_opened, then dispute_closed once the
 * PSP decided), its message id the infraction's and its state's, so a listing that shows it again
 * adds nothing; the txid of its charge is read once per new fact (GET /pix/{e2eid}).
 *
 * A PSP that serves no infractions (a connection set so, or a PSP that answers 404) is not read
 * again: that connection's disputes are not known, and its MED returns still reach the payment as
 * refunds of origin psp (docs/decisions/disputes.md).
 */
export class InfractionReading extends Periodic {
  constructor(
    private readonly connection: InfractionConnection,
    private readonly js: JetStreamClient,
    private readonly told: ToldFacts,
    private readonly cursor: ReconciliationCursor,
    private readonly settings: ReconciliationSettings,
    private readonly metrics: InfractionMetrics,
    private readonly logger: Logger,
  ) {
    super(settings.intervalMs, (err) => {
      metrics.runs.inc({ connection: connection.name, outcome: 'failed' });
      logger.warn(
        { connection: connection.name, err },
        "reading the PSP's infractions failed; its window is read again next time",
      );
    });
  }

  /** Outside any trace: a reading is nobody's request. */
  protected run(): Promise<void> {
    return withTraceCarrier(undefined, () => this.read(new Date()));
  }

  /** Set once the PSP answered that it serves no infractions: nothing is asked of it again. */
  private unsupported = false;

  private async read(now: Date): Promise<void> {
    const { name: connection, provider } = this.connection;
    if (this.unsupported) return;
    const state = await this.cursor.read();
    const window = nextWindow(state?.through ?? null, now, this.settings);
    if (!window.behind && doneRecently(state?.completedAt, now, this.settings)) {
      this.metrics.runs.inc({ connection, outcome: 'skipped' });
      return;
    }
    let added = 0;
    let pages = 1;
    for (let page = 0; page < pages; page++) {
      const listed = await provider.listInfractions(window, page);
      if (listed === 'unsupported') {
        this.metrics.runs.inc({ connection, outcome: 'unsupported' });
        this.logger.warn(
          { connection },
          "the PSP serves no infractions (404): this connection's disputes are not read; MED returns still are refunds",
        );
        this.unsupported = true;
        return;
      }
      pages = listed.pages;
      for (const infraction of listed.infractions) added += await this.tell(infraction);
    }
    await this.cursor.advance(window.to, new Date());
    this.metrics.runs.inc({ connection, outcome: 'completed' });
    this.logger.debug({ connection, from: window.from, to: window.to, pages, added }, 'infractions read');
    if (window.behind) this.poke();
  }

  /** Tells one infraction's facts not told lately; how many JetStream had not stored before. */
  private async tell(infraction: InfractionAtPsp): Promise<number> {
    const { name: connection, livemode, provider } = this.connection;
    const facts = (pixTxid: string) => factsFromInfraction(infraction, pixTxid, livemode);
    // The message ids do not depend on the txid: look them up before reading the Pix.
    if (facts('').every((fact) => this.told.has(fact.msgId))) return 0;
    const pix = await provider.readPix(infraction.endToEndId);
    if (!pix?.txid) {
      this.metrics.unknownPix.inc({ connection });
      this.logger.error(
        { connection, pspDisputeId: infraction.pspDisputeId, endToEndId: infraction.endToEndId },
        'infraction against a Pix the PSP holds for no charge; needs an operator',
      );
      return 0;
    }
    let added = 0;
    for (const fact of facts(pix.txid)) {
      if (this.told.has(fact.msgId)) continue;
      const { duplicate } = await publishEvent(this.js, fact.subject, fact.payload, fact.msgId);
      this.told.add(fact.msgId);
      if (duplicate) continue;
      added++;
      this.metrics.told.inc({ connection, kind: fact.subject.endsWith('opened') ? 'opened' : 'closed' });
      this.logger.info(
        { connection, txid: pix.txid, pspDisputeId: infraction.pspDisputeId, subject: fact.subject },
        'dispute told, says the PSP',
      );
    }
    return added;
  }
}
