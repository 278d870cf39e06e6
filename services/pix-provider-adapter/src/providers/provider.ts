import type { CreateRefundReply } from '@pix/contracts';

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
  amountCents: number;
  expiresInSeconds: number;
  description: string | null;
}

export interface RefundInput {
  refundId: string;
  endToEndId: string;
  amountCents: number;
}

/**
 * The port to a Pix PSP. Implementations make createCharge idempotent by txid and refund
 * idempotent by refund id, so callers may retry freely.
 */
export interface PixProvider {
  /** `signal`: the caller stopped waiting; the call (and its retries) stops. */
  createCharge(input: CreateChargeInput, signal?: AbortSignal): Promise<Charge>;
  refund(input: RefundInput): Promise<CreateRefundReply>;
}
