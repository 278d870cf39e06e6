import type { CreateChargeReply, CreateRefundReply } from '@pix/contracts';

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
 * The port to a Pix PSP, in the platform's terms: each provider maps its PSP's words in a
 * transformers module of its own (api-pix/transformers.ts). Implementations make createCharge
 * idempotent by txid and refund idempotent by refund id, so callers may retry freely.
 */
export interface PixProvider {
  /** `signal`: the caller stopped waiting; the call (and its retries) stops. */
  createCharge(input: CreateChargeInput, signal?: AbortSignal): Promise<CreateChargeReply>;
  refund(input: RefundInput): Promise<CreateRefundReply>;
}

/** A PSP operation, as psp_requests_total counts them. */
export type PspOperation = 'token' | 'create_charge' | 'refund';

/** Reports each PSP operation's outcome (after its retries): psp_requests_total. */
export type OnPspRequest = (operation: PspOperation, outcome: 'success' | 'failure') => void;

/** Runs one operation at the PSP and reports how it ended. */
export async function counted<T>(onRequest: OnPspRequest, operation: PspOperation, call: () => Promise<T>): Promise<T> {
  try {
    const answer = await call();
    onRequest(operation, 'success');
    return answer;
  } catch (err) {
    onRequest(operation, 'failure');
    throw err;
  }
}
