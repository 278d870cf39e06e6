/**
 * API Pix identifiers derived from a payment id (a UUID), shared by payments, which asks for the
 * charge, and the sandbox PSP, which is driven by payment id from the admin CLI.
 */

/** The txid of a payment's charge (cob): its id without dashes, 32 alphanumerics (API Pix: 26-35). */
export function txidFor(paymentId: string): string {
  return paymentId.replace(/-/g, '');
}

/** Refund numbers are written in base 36 in three characters: a payment can have this many refunds. */
export const MAX_REFUNDS_PER_CHARGE = 36 ** 3;

/**
 * The id of a payment's n-th refund (0-based) at the PSP: the devolução id of
 * `PUT /pix/{e2eid}/devolucao/{id}` (API Pix: 1-35 alphanumerics). Derived, never drawn: every retry
 * of a refund names the same devolução, so the PSP keeps one. It starts with the charge's txid, so a
 * settlement the PSP reports leads back to its payment by the txid's index.
 */
export function refundPspId(txid: string, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_REFUNDS_PER_CHARGE) {
    throw new RangeError(`refund number out of range: ${index}`);
  }
  return `${txid}${index.toString(36).padStart(3, '0')}`;
}
