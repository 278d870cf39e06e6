import { Subjects } from '@pix/contracts';
import type { Infracao } from '@pix/api-pix';
import { createLogger, Counter, Registry } from '@pix/observability';
import { capturePublished } from '../../../libs/messaging/src/testing/published';
import { defesaRequestFrom, factsFromInfraction, infractionFrom } from './api-pix/transformers';
import { InfractionReading } from './infractions';
import type { InfractionPage, InfractionProvider, PixProvider } from './providers/provider';
import type { ReconciliationCursor, ReconciliationState } from './reconciliation-cursor';
import { ToldFacts } from './told-facts';

const E2E = 'E99999999202611281200abcdefghijk';

function infracao(fields: Partial<Infracao> = {}): Infracao {
  const now = new Date().toISOString();
  return {
    idInfracao: 'INF1',
    endToEndId: E2E,
    valor: '30.00',
    tipoSituacao: 'golpe',
    motivo: 'Não reconheço esta compra.',
    status: 'ABERTA',
    prazo: '2026-12-05T12:00:00.000Z',
    horario: { criacao: now, atualizacao: now },
    ...fields,
  };
}

describe("Efí's infractions in the platform's words", () => {
  it('an open one is one fact (dispute_opened), a decided one is opened then closed, each with its own id', () => {
    const open = factsFromInfraction(infractionFrom(infracao()), 'txid1', false);
    expect(open).toEqual([
      {
        subject: Subjects.pixDisputeOpened,
        msgId: 'dispute:INF1:opened',
        payload: {
          txid: 'txid1',
          endToEndId: E2E,
          pspDisputeId: 'INF1',
          reason: 'Não reconheço esta compra.',
          kind: 'golpe',
          amountCents: 3000,
          deadlineAt: '2026-12-05T12:00:00.000Z',
          openedAt: expect.any(String),
          livemode: false,
        },
      },
    ]);
    const decided = factsFromInfraction(infractionFrom(infracao({ status: 'ACEITA' })), 'txid1', true);
    expect(decided.map((fact) => [fact.subject, fact.msgId])).toEqual([
      [Subjects.pixDisputeOpened, 'dispute:INF1:opened'],
      [Subjects.pixDisputeClosed, 'dispute:INF1:closed'],
    ]);
    expect(decided[1]?.payload).toMatchObject({ decision: 'accepted', livemode: true });
  });

  it('answered (EM_DEFESA) or of a status it does not know is still open; REJEITADA and CANCELADA_EFI close it', () => {
    expect(infractionFrom(infracao({ status: 'EM_DEFESA' })).decision).toBeNull();
    expect(infractionFrom(infracao({ status: 'NOVO_STATUS' })).decision).toBeNull();
    expect(infractionFrom(infracao({ status: 'REJEITADA' })).decision).toBe('rejected');
    expect(infractionFrom(infracao({ status: 'CANCELADA_EFI' })).decision).toBe('cancelled');
  });

  it('an amount it cannot read makes no fact; a defence contests the claim with the text', () => {
    expect(factsFromInfraction(infractionFrom(infracao({ valor: '0.00' })), 't', false)).toEqual([]);
    expect(defesaRequestFrom('O produto foi entregue.')).toEqual({
      analise: 'rejeitado',
      justificativa: 'O produto foi entregue.',
    });
  });
});

/** A PSP listing infractions (or none: 'unsupported'), and the Pix they are against. */
class InfractionPsp {
  readonly asked: number[] = [];
  readonly readPixes: string[] = [];
  constructor(
    readonly infractions: Infracao[] | 'unsupported',
    readonly txidOf: Record<string, string> = { [E2E]: 'txid1' },
  ) {}

  listInfractions(_window: { from: Date; to: Date }, page: number): Promise<InfractionPage | 'unsupported'> {
    this.asked.push(page);
    if (this.infractions === 'unsupported') return Promise.resolve('unsupported');
    return Promise.resolve({ infractions: this.infractions.map(infractionFrom), pages: 1 });
  }

  readPix(endToEndId: string) {
    this.readPixes.push(endToEndId);
    const txid = this.txidOf[endToEndId];
    return Promise.resolve(txid ? { endToEndId, txid, valor: '50.00', horario: new Date().toISOString() } : null);
  }
}

class MemoryCursor {
  state: ReconciliationState | null = null;
  read() {
    return Promise.resolve(this.state);
  }
  advance(through: Date, completedAt: Date) {
    this.state = { _id: 'infractions:test', through, completedAt };
    return Promise.resolve();
  }
}

function setup(psp: InfractionPsp) {
  const registry = new Registry();
  const counter = (name: string, labelNames: readonly string[]) =>
    new Counter({ name, help: 'h', labelNames: labelNames as ['connection'], registers: [registry] });
  const metrics = {
    told: counter('told', ['connection', 'kind']) as unknown as Counter<'connection' | 'kind'>,
    runs: counter('runs', ['connection', 'outcome']) as unknown as Counter<'connection' | 'outcome'>,
    unknownPix: counter('unknown', ['connection']),
  };
  const { js, published } = capturePublished();
  const told = new ToldFacts(10 * 60_000);
  const cursor = new MemoryCursor();
  const reading = new InfractionReading(
    { name: 'test', livemode: false, provider: psp as unknown as PixProvider & InfractionProvider },
    js,
    told,
    cursor as unknown as ReconciliationCursor,
    { intervalMs: 60_000, overlapMs: 120_000 },
    metrics,
    createLogger('test', 'silent'),
  );
  /** One run of this replica (its Periodic's pass), as if the last one were an interval ago. */
  const run = async () => {
    cursor.state = cursor.state && { ...cursor.state, completedAt: new Date(0) };
    await (reading as unknown as { run(): Promise<void> }).run();
  };
  return { published, cursor, run };
}

describe("reading a PSP's infractions", () => {
  it('tells each infraction once, reading its Pix once, and moves its cursor', async () => {
    const psp = new InfractionPsp([infracao()]);
    const { published, cursor, run } = setup(psp);
    await run();
    await run();
    expect(published.map((p) => [p.subject, p.id])).toEqual([[Subjects.pixDisputeOpened, 'dispute:INF1:opened']]);
    expect(psp.readPixes).toEqual([E2E]);
    expect(cursor.state?.through).toBeInstanceOf(Date);
  });

  it('an infraction against a Pix of no charge makes no fact', async () => {
    const psp = new InfractionPsp([infracao()], {});
    const { published, run } = setup(psp);
    await run();
    expect(published).toEqual([]);
  });

  it('a PSP that answers 404 is not asked again, and its cursor does not move', async () => {
    const psp = new InfractionPsp('unsupported');
    const { published, cursor, run } = setup(psp);
    await run();
    await run();
    expect(psp.asked).toEqual([0]);
    expect(published).toEqual([]);
    expect(cursor.state).toBeNull();
  });
});
