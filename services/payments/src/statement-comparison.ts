import type { ListedPix, StatementDifference } from '@pix/contracts';
import type { BalanceMovement } from './model';

/** A devolução's status once the money is back with the payer: the only one a movement stands for. */
const RETURNED = 'DEVOLVIDO';

/** What the PSP says of a day: the Pix it listed that day, and those read one by one (or not found). */
export interface PspDay {
  /** The Pix GET /pix listed in the day's window. */
  listed: ListedPix[];
  /** Pix the day's movements name that the listing did not hold, read one by one. */
  read: ListedPix[];
  /** Pix the day's movements name that the PSP does not have. */
  unknown: string[];
}

/**
 * Every difference between the PSP's day and the platform's movements (docs/decisions/statement-check.md).
 * `movements` are the connection's movements of every Pix the day concerns, whatever day they fall
 * on: those of the Pix the PSP listed that day and those of the Pix the day's movements name. Each
 * Pix is compared once, as a whole: its amount with its movement in, its devoluções DEVOLVIDO with
 * its movements out (matched by amount), so a refund made on another day than its Pix still matches.
 * A Pix the platform has no movement in for is reported only when the PSP listed it that day: one
 * read because of a refund may have been paid before movements were recorded.
 */
export function compareDay(psp: PspDay, movements: BalanceMovement[]): StatementDifference[] {
  const atPsp = new Map<string, { pix: ListedPix; listed: boolean }>();
  for (const pix of psp.read) atPsp.set(pix.endToEndId, { pix, listed: false });
  for (const pix of psp.listed) atPsp.set(pix.endToEndId, { pix, listed: true });
  const byPix = new Map<string, BalanceMovement[]>();
  for (const moved of movements) byPix.set(moved.endToEndId, [...(byPix.get(moved.endToEndId) ?? []), moved]);
  const ids = [...new Set([...atPsp.keys(), ...byPix.keys(), ...psp.unknown])].sort();
  return ids.flatMap((id) => comparePix(id, atPsp.get(id), byPix.get(id) ?? []));
}

function comparePix(
  endToEndId: string,
  psp: { pix: ListedPix; listed: boolean } | undefined,
  movements: BalanceMovement[],
): StatementDifference[] {
  const ins = movements.filter((m) => m.amountCents > 0);
  const outs = movements.filter((m) => m.amountCents < 0);
  const difference = (
    kind: StatementDifference['kind'],
    fields: Partial<Omit<StatementDifference, 'kind' | 'endToEndId'>>,
  ): StatementDifference => ({
    kind,
    endToEndId,
    pspCents: null,
    platformCents: null,
    pspStatus: null,
    paymentId: null,
    ...fields,
  });
  if (!psp) {
    return [
      ...ins.map((m) => difference('pix_not_at_psp', { platformCents: m.amountCents, paymentId: m.paymentId })),
      ...outs.map((m) => difference('refund_not_at_psp', { platformCents: -m.amountCents, paymentId: m.paymentId })),
    ];
  }
  const { pix, listed } = psp;
  const found: StatementDifference[] = [];
  if (ins.length === 0) {
    if (listed) found.push(difference('pix_unknown', { pspCents: pix.amountCents }));
  } else {
    for (const m of ins) {
      if (m.amountCents !== pix.amountCents) {
        found.push(
          difference('amount_differs', {
            pspCents: pix.amountCents,
            platformCents: m.amountCents,
            paymentId: m.paymentId,
          }),
        );
      }
    }
  }
  const returned = pix.devolucoes.filter((d) => d.status === RETURNED);
  for (const m of outs) {
    const match = returned.findIndex((d) => d.amountCents === -m.amountCents);
    if (match >= 0) {
      returned.splice(match, 1);
      continue;
    }
    const other = pix.devolucoes.find((d) => d.status !== RETURNED && d.amountCents === -m.amountCents);
    found.push(
      difference('refund_not_at_psp', {
        platformCents: -m.amountCents,
        pspCents: other?.amountCents ?? null,
        pspStatus: other?.status ?? null,
        paymentId: m.paymentId,
      }),
    );
  }
  const paymentId = movements[0]?.paymentId ?? null;
  for (const d of returned) {
    found.push(difference('refund_missing', { pspCents: d.amountCents, pspStatus: d.status, paymentId }));
  }
  return found;
}
