import { z } from 'zod';
import { DisputeSchema } from './dispute';
import { PaymentEventDataSchema } from './events';

/** A payment as the public API returns it (spec 2.1): the same shape from create, get and list. */
export const PaymentSchema = PaymentEventDataSchema.extend({
  id: z.uuid(),
  amount: z.number().meta({ description: 'BRL, at most two decimal places' }),
  createdAt: z.iso.datetime({ precision: 3 }).meta({ description: 'ISO 8601, UTC, with milliseconds' }),
  isPublic: z.boolean(),
  refundedAmount: z.number().meta({
    description: 'BRL returned to the payer of the Pix that paid it: the sum of its succeeded refunds (0 before any)',
  }),
  expiresAt: z.iso
    .datetime({ precision: 3 })
    .meta({ description: 'When the charge expires: a payment still pending then becomes not_approved' }),
  dispute: DisputeSchema.optional().meta({
    description:
      "The payer's fraud claim (MED) against the Pix, as the PSP reports it: present only on a payment that has one",
  }),
});
export type Payment = z.infer<typeof PaymentSchema>;

/** A page of a paged list (spec 2.3): the payments list's, and the Events API's. */
export function listPageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
  });
}

/** The list envelope (spec 2.3). */
export const PaymentListSchema = listPageSchema(PaymentSchema);
export type PaymentList = z.infer<typeof PaymentListSchema>;

/** The error body (spec 2.4). */
export const ErrorBodySchema = z.object({
  statusCode: z.number().int(),
  message: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Spec 2.2 and 8; the spec leaves webhookUrl's length open, 2048 is the common URL limit. */
export const MAX_OBSERVATION_CHARS = 2048;
export const MAX_WEBHOOK_URL_CHARS = 2048;
/**
 * A charge's life, chosen by the merchant at create (`expiresIn`, seconds): API Pix's
 * `calendario.expiracao`. Unset, the platform's PIX_CHARGE_TTL applies.
 */
export const EXPIRES_IN_BOUNDS = { min: 60, max: 30 * 24 * 60 * 60 } as const;

/** RFC 5321's limit of a forward path. */
export const MAX_EMAIL_CHARS = 254;

/**
 * The list's bounds (spec 4.3 and 8). The spec sets no last page; one is set so that every page the
 * OpenAPI document allows is one the service takes (a million pages of 200 is far beyond any store).
 */
export const LIST_BOUNDS = { maxPage: 1_000_000, maxLimit: 200, defaultLimit: 50 } as const;
