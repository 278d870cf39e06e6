import { z } from 'zod';
import { RequestLivemodeSchema } from './modes';

/**
 * What payments asks of the PSP through the adapter's work queue (the PIX_COMMANDS stream), each
 * published with the payment write that decided it, so none is lost and none is asked twice: the
 * adapter acks a command once the PSP answered it, or once its retry is scheduled. `attempt` counts
 * the tries: from the second on, the adapter reads the PSP's record before it sends anything again.
 * A scheduled message keeps only its body, so the trace context travels in it.
 */
const CommandBase = z.object({
  txid: z.string(),
  attempt: z.number().int().min(1),
  /** The payment's mode: the PSP connection the command goes to (a command from before modes: test). */
  livemode: RequestLivemodeSchema,
  trace: z.record(z.string(), z.string()).optional(),
});

/** Send a refund (API Pix `PUT /pix/{e2eid}/devolucao/{id}`), then read it back until the PSP settles it. */
export const RefundCommandSchema = CommandBase.extend({
  paymentId: z.string(),
  /** The refund's own id (the public one). */
  refundId: z.string(),
  /** The devolução's id at the PSP (refundPspId): the same on every try. */
  pspRefundId: z.string().regex(/^[A-Za-z0-9]{1,35}$/),
  endToEndId: z.string(),
  amountCents: z.number().int().positive(),
  /** The devolução's descricao (the merchant's reason, or the platform's). */
  description: z.string().nullable(),
  /** The PSP took it and is processing it: only read it back (a read that finds none sends it again). */
  accepted: z.boolean(),
});
export type RefundCommand = z.infer<typeof RefundCommandSchema>;

/** Remove a cancelled payment's charge (API Pix `PATCH /cob/{txid}`, status REMOVIDA_PELO_USUARIO_RECEBEDOR). */
export const CancelCommandSchema = CommandBase.extend({ paymentId: z.string() });
export type CancelCommand = z.infer<typeof CancelCommandSchema>;

/**
 * Forward a merchant's defence of a dispute to the PSP (Efí's `POST /v2/gn/infracoes/{id}/defesa`),
 * once: its message id is the infraction's, and the PSP takes one defence per infraction.
 */
export const DefenseCommandSchema = CommandBase.extend({
  paymentId: z.string(),
  /** The infraction's id at the PSP. */
  pspDisputeId: z.string(),
  text: z.string(),
});
export type DefenseCommand = z.infer<typeof DefenseCommandSchema>;
