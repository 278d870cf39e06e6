/**
 * API Pix identifiers derived from a payment id (a UUID), shared by payments, which asks for the
 * charge, and the sandbox PSP, which is driven by payment id from the admin CLI.
 */

/** The txid of a payment's charge (cob): its id without dashes, 32 alphanumerics (API Pix: 26-35). */
export function txidFor(paymentId: string): string {
  return paymentId.replace(/-/g, '');
}

/** The id of a payment's refund (devolução, API Pix: 1-35 alphanumerics): one per payment. */
export function refundIdFor(paymentId: string): string {
  return `dev${txidFor(paymentId)}`.slice(0, 35);
}

/**
 * Which PSP the adapter talks to (PIX_PROVIDER): `sandbox`, the embedded simulator, or `apipix`, a
 * real PSP. The gateway reads it too: the public sandbox routes exist only in sandbox deployments.
 */
export const PIX_PROVIDERS = ['sandbox', 'apipix'] as const;
export type PixProviderName = (typeof PIX_PROVIDERS)[number];
