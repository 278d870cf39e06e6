/** A charge (API Pix "cob") as the PSP created it. */
export interface Charge {
  txid: string;
  /** The charge's payload location (no scheme), which a dynamic BR Code points at. */
  location: string;
  /** The BR Code (pixCopiaECola) to pay the charge with. */
  pixCopiaECola: string;
}

export interface CreateChargeInput {
  txid: string;
  paymentId: string;
  amountCents: number;
  expiresInSeconds: number;
  description: string | null;
}

/** The port to a Pix PSP. Implementations must make createCharge idempotent by txid. */
export interface PixProvider {
  createCharge(input: CreateChargeInput): Promise<Charge>;
}
