import {
  BackOfficeFailNextRefundSchema,
  BackOfficeMedSchema,
  BackOfficePaths,
  BackOfficePixSchema,
  BackOfficeRefusalSchema,
  valorFrom,
} from '@pix/api-pix';
import { DOMAIN_ERROR_CODES, DomainError, txidFor, type DomainErrorCode, type MedNature } from '@pix/contracts';
import { callFailure, got, HTTPError } from '@pix/http';
import type { z } from 'zod';
import { NATUREZA_OF } from './api-pix/transformers';

/** What the analysis actions answer, in the sandbox RPC's words. */
const ANALYSIS_OF = { EM_ANALISE: 'review', LIBERADO: 'cleared', REJEITADO: 'rejected' } as const;

/** A pay waits for the simulator's callback to the adapter and its read-back: a few round trips. */
const BACK_OFFICE_TIMEOUT_MS = 10_000;

/**
 * `sandbox pay | review | clear | reject | fail-next-refund | med` by payment id, for the admin CLI and the
 * gateway's public sandbox routes alike: the PSP simulator's back office plays the payer and the
 * PSP's staff, by the charge's txid. What it does reaches the platform as a real PSP's Pix does: its
 * callback to the adapter over mutual TLS, read back over API Pix. A back office refusal (no such
 * charge, paid otherwise, …) is the platform's domain error of the same code; a back office away,
 * slow or failing is temporary (503: the caller tries again, and each action is idempotent).
 */
export class SandboxCommands {
  private readonly http: typeof got;

  constructor(backOfficeUrl: string) {
    this.http = got.extend({
      prefixUrl: backOfficeUrl,
      timeout: { request: BACK_OFFICE_TIMEOUT_MS },
      // Each action is idempotent at the back office (a late Pix aside): a retry is the caller's.
      retry: { limit: 0 },
    });
  }

  async pay(
    paymentId: string,
    amountCents: number | undefined,
    late: boolean,
    dropCallback: boolean,
    signal?: AbortSignal,
  ) {
    const txid = txidFor(paymentId);
    const json = {
      ...(amountCents !== undefined && { valor: valorFrom(amountCents) }),
      ...(late && { late }),
      ...(dropCallback && { dropCallback }),
    };
    const pix = await this.post(BackOfficePaths.pay(txid), json, BackOfficePixSchema, signal);
    return {
      paymentId,
      txid: pix.txid,
      endToEndId: pix.endToEndId,
      amount: Number(pix.valor),
    };
  }

  review(paymentId: string, signal?: AbortSignal) {
    return this.analysis(paymentId, BackOfficePaths.review, signal);
  }

  clear(paymentId: string, signal?: AbortSignal) {
    return this.analysis(paymentId, BackOfficePaths.clear, signal);
  }

  reject(paymentId: string, signal?: AbortSignal) {
    return this.analysis(paymentId, BackOfficePaths.reject, signal);
  }

  /** The PSP will settle the payment's next refund as not done (NAO_REALIZADO). */
  async failNextRefund(paymentId: string, signal?: AbortSignal) {
    const txid = txidFor(paymentId);
    const answer = await this.post(BackOfficePaths.failNextRefund(txid), {}, BackOfficeFailNextRefundSchema, signal);
    return { paymentId, txid: answer.txid, failureReason: answer.motivo };
  }

  /** The PSP returns the Pix that paid the payment on its own (a MED return); each call a new return. */
  async med(paymentId: string, amountCents: number | undefined, nature: MedNature, signal?: AbortSignal) {
    const json = { ...(amountCents !== undefined && { valor: valorFrom(amountCents) }), natureza: NATUREZA_OF[nature] };
    const made = await this.post(BackOfficePaths.medOfCharge(txidFor(paymentId)), json, BackOfficeMedSchema, signal);
    return {
      paymentId,
      txid: made.txid,
      endToEndId: made.endToEndId,
      amount: Number(made.devolucao.valor),
      nature,
    };
  }

  private async analysis(paymentId: string, path: (txid: string) => string, signal?: AbortSignal) {
    const pix = await this.post(path(txidFor(paymentId)), {}, BackOfficePixSchema, signal);
    const analysis = ANALYSIS_OF[pix.analise ?? 'EM_ANALISE'];
    return { paymentId, txid: pix.txid, endToEndId: pix.endToEndId, analysis };
  }

  private async post<S extends z.ZodType>(path: string, json: object, schema: S, signal?: AbortSignal) {
    try {
      return schema.parse(await this.http.post(path, { json, signal }).json()) as z.infer<S>;
    } catch (err) {
      const refusal = err instanceof HTTPError ? refusalOf(err.response.body) : null;
      if (refusal) throw new DomainError(refusal);
      // Told by its own words: got's error keeps the call's options and answer.
      const failure = callFailure(err);
      if (failure.status !== undefined && failure.status < 500) {
        throw new Error(`the PSP simulator's back office refused ${path}: ${failure.message}`);
      }
      // Temporary (`transient`: serveRpc logs it and answers 503): the back office away, slow or failing.
      throw Object.assign(new Error(`the PSP simulator's back office failed on ${path}: ${failure.message}`), {
        transient: true,
        cause: failure.cause,
      });
    }
  }
}

/** The domain error a back office refusal names, if it names one. */
function refusalOf(body: unknown): DomainErrorCode | null {
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return null;
    }
  }
  const refusal = BackOfficeRefusalSchema.safeParse(parsed);
  if (!refusal.success) return null;
  return (DOMAIN_ERROR_CODES as readonly string[]).includes(refusal.data.error)
    ? (refusal.data.error as DomainErrorCode)
    : null;
}
