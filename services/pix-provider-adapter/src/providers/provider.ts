import type { CreateChargeReply, DisputeDecision, RefundNature } from '@pix/contracts';
import type { PixEntry, ReceivedPix } from '@pix/api-pix';

export interface CreateChargeInput {
  txid: string;
  amountCents: number;
  expiresInSeconds: number;
  description: string | null;
}

/** A refund to send: the Pix it returns, the devolução's id at the PSP, how much and why. */
export interface RefundInput {
  pspRefundId: string;
  endToEndId: string;
  amountCents: number;
  description: string | null;
}

/** A refund as the PSP holds it, in the platform's words (api-pix/transformers.ts reads API Pix's). */
export interface RefundAtPsp {
  pspRefundId: string;
  /** The return's id in the Pix system; null for a refund the PSP refused outright. */
  rtrId: string | null;
  /** processing: under way at the PSP; refunded: the money is back with the payer; failed: not done. */
  status: 'processing' | 'refunded' | 'failed';
  /** When it settled (refunded or failed), as the PSP says; null while processing. */
  settledAt: string | null;
  /** The PSP's motivo, when it failed. */
  failureReason: string | null;
  /** How much it returns, as the PSP says (null: an amount the platform cannot read). */
  amountCents: number | null;
  /** Why it was made, in the platform's words: a MED return, or `other` (the receiver's own among them). */
  nature: RefundNature;
}

/** One page of the Pix a PSP received in a window, as it tells them (API Pix's own words). */
export interface ReceivedPixPage {
  pix: ReceivedPix[];
  /** How many pages the window has (pages count from 0). */
  pages: number;
}

/** A charge as the PSP holds it now: still payable or not, and the Pix it received (API Pix's words). */
export interface ChargeAtPsp {
  status: 'active' | 'concluded' | 'removed';
  pix: PixEntry[];
}

/** What removing a charge found: removed now, or nothing to remove (none, or paid, expired or removed already). */
export type ChargeRemoval = 'removed' | 'not_active' | 'not_found';

/**
 * The PSP refused a request for good (API Pix answered 4xx with a problem): asking again would be
 * refused again. Anything else a call throws is temporary (the PSP away, a timeout, a 5xx).
 */
export class PspRefusal extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`the PSP refused the request (${status}): ${detail}`);
    this.name = 'PspRefusal';
  }
}

/**
 * A call to the PSP that failed for now: no answer (`code`: ECONNREFUSED, ETIMEDOUT, a TLS
 * error's...) or an answer that is no refusal (5xx, 401, 408, 429; `status`). It says which call
 * and how it ended, never what was sent or answered: the HTTP client's error keeps the call's
 * options (the client certificate's key, the Authorization header, the body), and a PSP may echo
 * the request in its answer. `cause` is the network error under it, if any.
 */
export class PspError extends Error {
  /** No answer at all is the PSP (or the way to it) away for a moment: see isTransient of @pix/messaging. */
  readonly transient: boolean;

  constructor(
    readonly operation: PspOperation,
    readonly method: string,
    readonly path: string,
    readonly elapsedMs: number,
    readonly status: number | undefined,
    readonly code: string | undefined,
    reason: string,
    cause?: Error,
  ) {
    super(
      status === undefined
        ? `the PSP did not answer ${operation} (${method} ${path}): ${reason}`
        : `the PSP answered ${operation} (${method} ${path}) with HTTP ${status}${code ? ` (${code})` : ''}`,
      { cause },
    );
    this.name = 'PspError';
    this.transient = status === undefined;
  }
}

/**
 * The port to a Pix PSP, in the platform's terms: each provider maps its PSP's words in a
 * transformers module of its own (api-pix/transformers.ts). createCharge is idempotent by txid;
 * a refund is named by its PSP id, so sending it again names the same devolução, but a PSP may
 * answer a repeated PUT differently (bacen/pix-api #277): callers read a refund back
 * (`readRefund`) before sending it again, and `sendRefund` itself never retries blindly.
 */
export interface PixProvider {
  /** `signal`: the caller stopped waiting; the call (and its retries) stops. */
  createCharge(input: CreateChargeInput, signal?: AbortSignal): Promise<CreateChargeReply>;
  /** PUT devolução, once; a PspRefusal when the PSP refuses it. */
  sendRefund(input: RefundInput): Promise<RefundAtPsp>;
  /** GET devolução: the refund as the PSP holds it, or null when it has none with this id. */
  readRefund(endToEndId: string, pspRefundId: string): Promise<RefundAtPsp | null>;
  /** PATCH cob to REMOVIDA_PELO_USUARIO_RECEBEDOR: the charge can no longer be paid. */
  removeCharge(txid: string): Promise<ChargeRemoval>;
  /** GET /cob: the charge and the Pix it received, or null when the PSP has no such charge. */
  readCharge(txid: string): Promise<ChargeAtPsp | null>;
  /**
   * GET /pix/{e2eid}: a received Pix as the PSP holds it, its devoluções included (API Pix's words),
   * or null when it has none with this endToEndId: what a callback is read back against.
   */
  readPix(endToEndId: string): Promise<ReceivedPix | null>;
  /** GET /pix: one page of the Pix received from `from` to `to` (both inclusive). */
  listReceivedPix(window: { from: Date; to: Date }, page: number): Promise<ReceivedPixPage>;
}

/** An infraction (a MED claim) against a Pix the PSP received, in the platform's words. */
export interface InfractionAtPsp {
  pspDisputeId: string;
  endToEndId: string;
  /** How much the claim blocks (null: an amount the platform cannot read). */
  amountCents: number | null;
  reason: string;
  kind: string;
  /** The PSP's decision once it decided; null while open (answered or not). */
  decision: DisputeDecision | null;
  deadlineAt: string;
  openedAt: string;
  /** Its last change at the PSP: when a decision was made. */
  changedAt: string;
}

/** One page of the infractions that changed in a window. */
export interface InfractionPage {
  infractions: InfractionAtPsp[];
  pages: number;
}

/**
 * A PSP that reports infractions to its receivers (Efí's `GET /v2/gn/infracoes`, not API Pix):
 * listed by when they last changed, answered once. `unsupported`: the PSP serves none (404).
 */
export interface InfractionProvider {
  listInfractions(window: { from: Date; to: Date }, page: number): Promise<InfractionPage | 'unsupported'>;
  /** Sends the receiver's defence of an infraction, once; a PspRefusal when the PSP refuses it. */
  sendDefense(pspDisputeId: string, text: string): Promise<void>;
}

/** A PSP operation, as psp_requests_total counts them. */
export type PspOperation =
  | 'token'
  | 'create_charge'
  | 'refund'
  | 'read_refund'
  | 'remove_charge'
  | 'read_charge'
  | 'read_pix'
  | 'list_pix'
  | 'register_webhook'
  | 'list_infractions'
  | 'send_defense';

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
