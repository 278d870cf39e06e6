import type { BalanceTransactionType, ListedPix } from '@pix/contracts';
import type { BalanceMovement } from './model';
import { compareDay } from './statement-comparison';
import { movementOf } from './testing/movements';

const PAID = 'E00000000202611281500paidpixxxxxx';
const OTHER = 'E00000000202611281600otherpixxxxx';

function pix(endToEndId: string, amountCents: number, devolucoes: ListedPix['devolucoes'] = []): ListedPix {
  return { endToEndId, txid: 'txid', amountCents, horario: '2026-11-28T15:00:00.000Z', devolucoes };
}

function movement(type: BalanceTransactionType, endToEndId: string, amountCents: number, n = 1): BalanceMovement {
  return movementOf(type, endToEndId, amountCents, n, new Date('2026-11-28T15:00:00.000Z'));
}

const returned = (id: string, amountCents: number, status = 'DEVOLVIDO') => ({ id, amountCents, status });
const none = { read: [], unknown: [] };

describe('the statement check’s comparison of a day', () => {
  it('finds nothing when each Pix and each devolução DEVOLVIDO has its movement, whatever day the refund fell on', () => {
    const psp = {
      ...none,
      listed: [pix(PAID, 5000, [returned('D1', 2000), returned('D2', 1000, 'EM_PROCESSAMENTO')])],
    };
    const movements = [movement('pix_received', PAID, 5000), movement('refund', PAID, -2000)];
    expect(compareDay(psp, movements)).toEqual([]);
  });

  it('reports a Pix the PSP listed that the platform has no movement for', () => {
    expect(compareDay({ ...none, listed: [pix(OTHER, 777)] }, [])).toEqual([
      {
        kind: 'pix_unknown',
        endToEndId: OTHER,
        pspCents: 777,
        platformCents: null,
        pspStatus: null,
        paymentId: null,
      },
    ]);
  });

  it('does not report a Pix read only for a refund of the day that has no movement in (paid before movements)', () => {
    const psp = { listed: [], read: [pix(PAID, 5000, [returned('D1', 5000)])], unknown: [] };
    expect(compareDay(psp, [movement('refund', PAID, -5000)])).toEqual([]);
  });

  it('reports a movement in and its refund for a Pix the PSP does not have', () => {
    const psp = { listed: [], read: [], unknown: [PAID] };
    const found = compareDay(psp, [movement('pix_received', PAID, 5000), movement('refund', PAID, -1500)]);
    expect(found.map((d) => [d.kind, d.platformCents, d.paymentId])).toEqual([
      ['pix_not_at_psp', 5000, `payment-${PAID}`],
      ['refund_not_at_psp', 1500, `payment-${PAID}`],
    ]);
  });

  it('reports an amount that differs', () => {
    const found = compareDay({ ...none, listed: [pix(PAID, 5000)] }, [movement('pix_received', PAID, 4999)]);
    expect(found).toEqual([expect.objectContaining({ kind: 'amount_differs', pspCents: 5000, platformCents: 4999 })]);
  });

  it('reports a devolução DEVOLVIDO without a movement, and a refund the PSP holds as not returned', () => {
    const psp = {
      ...none,
      listed: [pix(PAID, 5000, [returned('D1', 1000), returned('D2', 3000, 'NAO_REALIZADO')])],
    };
    const movements = [movement('pix_received', PAID, 5000), movement('refund', PAID, -3000)];
    expect(compareDay(psp, movements).map((d) => [d.kind, d.pspCents, d.platformCents, d.pspStatus])).toEqual([
      ['refund_not_at_psp', 3000, 3000, 'NAO_REALIZADO'],
      ['refund_missing', 1000, null, 'DEVOLVIDO'],
    ]);
  });

  it('matches two devoluções of the same amount with two movements, and reports a third', () => {
    const psp = { ...none, listed: [pix(PAID, 5000, [returned('D1', 1000), returned('D2', 1000)])] };
    const movements = [
      movement('pix_received', PAID, 5000),
      movement('refund', PAID, -1000, 1),
      movement('med_return', PAID, -1000, 2),
      movement('refund', PAID, -1000, 3),
    ];
    expect(compareDay(psp, movements).map((d) => d.kind)).toEqual(['refund_not_at_psp']);
  });

  it('compares a late Pix and its return like any Pix: by its own endToEndId', () => {
    const psp = { ...none, listed: [pix(PAID, 5000), pix(OTHER, 5000, [returned('D1', 5000)])] };
    const movements = [
      movement('pix_received', PAID, 5000),
      movement('late_pix_received', OTHER, 5000),
      movement('late_pix_returned', OTHER, -5000),
    ];
    expect(compareDay(psp, movements)).toEqual([]);
  });
});
