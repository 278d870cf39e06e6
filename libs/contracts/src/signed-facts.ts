import { z } from 'zod';
import { subjectMatches, Subjects } from './subjects';

/**
 * The facts that move money, and who states them: a Pix received or settled (`pix.events.*`, the
 * adapter's) and a payment's events (`payments.events.*`, payments', which become signed webhooks).
 * Each is signed by its producer with a key of its own (Ed25519) and verified by whoever applies it,
 * so a service that may publish on the subject, or that makes the bus publish there for it, cannot
 * state one: bus permissions are not the only control (docs/security.md: signed facts).
 */
export const SIGNED_FACT_SUBJECTS = [Subjects.pixEventsAll, Subjects.paymentEventsAll] as const;

/** Whether a message on `subject` is a fact that must carry its producer's signature. */
export function isSignedFactSubject(subject: string): boolean {
  return SIGNED_FACT_SUBJECTS.some((pattern) => subjectMatches(pattern, subject));
}

/**
 * The NATS headers a signed fact carries: which key signed it (its id, so verifiers hold a set of
 * keys through a rotation) and the signature, over the subject, the message id and the payload.
 */
export const FactHeaders = {
  keyId: 'Pix-Fact-Key',
  signature: 'Pix-Fact-Signature',
} as const;

/**
 * Why a fact was refused: no signature (or no message id to bind it to), a key the verifier does
 * not hold, or a signature that does not match what the message says.
 */
export const FACT_REFUSAL_REASONS = ['unsigned', 'unknown_key', 'bad_signature'] as const;
export type FactRefusalReason = (typeof FACT_REFUSAL_REASONS)[number];

/** A refused fact as the service that refused it keeps it aside, for the operator (`admin facts refused`). */
export const RefusedFactSchema = z.object({
  subject: z.string(),
  msgId: z.string().nullable(),
  reason: z.enum(FACT_REFUSAL_REASONS),
  keyId: z.string().nullable(),
  /** The stream and sequence it was stored under, to find it there while the stream keeps it. */
  stream: z.string(),
  streamSequence: z.number().int(),
  refusedAt: z.iso.datetime({ precision: 3 }),
  /** The payload as it came (UTF-8), cut at REFUSED_PAYLOAD_CHARS. */
  payload: z.string(),
});
export type RefusedFact = z.infer<typeof RefusedFactSchema>;

/** How much of a refused fact's payload is kept: enough to see what it claimed. */
export const REFUSED_PAYLOAD_CHARS = 4096;

/** The most refused facts one listing returns (of each verifier). */
export const REFUSED_FACTS_LIST_MAX = 500;
export const RefusedFactsRequestSchema = z.object({
  limit: z.number().int().min(1).max(REFUSED_FACTS_LIST_MAX).default(50),
});
export const RefusedFactsReplySchema = z.object({ facts: z.array(RefusedFactSchema) });
/** What `facts reapply` did: kept facts that verify now and were applied, and those still refused. */
export const ReapplyFactsReplySchema = z.object({ applied: z.number().int(), refused: z.number().int() });
