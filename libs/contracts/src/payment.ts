import { z } from 'zod';
import { AMOUNT_STEP_BRL, MAX_AMOUNT_CENTS, MIN_AMOUNT_CENTS } from './money';
import { PaymentEventDataSchema } from './events';
import { PUBLIC_STATUSES } from './statuses';

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
 * An e-mail as the gateway takes it: zod's e-mail pattern, stated as a pattern (not `format: email`)
 * so that the OpenAPI document says exactly what is checked, not what a client's validator takes an
 * e-mail to be.
 */
export const EmailSchema = z.string().max(MAX_EMAIL_CHARS).regex(z.regexes.email);

/**
 * The create-payment body as a merchant sends it (spec 2.2), for the OpenAPI document. The gateway
 * validates by hand (validation.ts) to answer the spec's exact message for the first bad field.
 */
export const CreatePaymentBodySchema = z
  .object({
    amount: z
      .number()
      .min(MIN_AMOUNT_CENTS / 100)
      .max(MAX_AMOUNT_CENTS / 100)
      .multipleOf(AMOUNT_STEP_BRL)
      .meta({ description: 'BRL, at most two decimal places (centavos)', examples: [25.5] }),
    email: EmailSchema.nullable().optional(),
    observation: z.string().max(MAX_OBSERVATION_CHARS).nullable().optional(),
    webhookUrl: z.url().max(MAX_WEBHOOK_URL_CHARS).nullable().optional().meta({ description: 'http or https' }),
    expiresIn: z.number().int().min(EXPIRES_IN_BOUNDS.min).max(EXPIRES_IN_BOUNDS.max).nullable().optional().meta({
      description: "Seconds until the charge expires (60 to 2,592,000, 30 days); absent: the platform's default",
    }),
  })
  // Other properties are ignored, not refused: the document says so (additionalProperties).
  .loose();

/** A validated create request, as the gateway hands it to payments (amount in centavos). */
export const CreatePaymentInputSchema = z.object({
  amountCents: z.number().int(),
  email: z.string().nullable(),
  observation: z.string().nullable(),
  webhookUrl: z.string().nullable(),
  /**
   * Seconds the charge lives; null: the platform's default (PIX_CHARGE_TTL). A gateway from before
   * expiresIn existed sends none, which is the default too.
   */
  expiresInSeconds: z.number().int().min(EXPIRES_IN_BOUNDS.min).max(EXPIRES_IN_BOUNDS.max).nullable().default(null),
});
export type CreatePaymentInput = z.infer<typeof CreatePaymentInputSchema>;

/**
 * The list's bounds (spec 4.3 and 8). The spec sets no last page; one is set so that every page the
 * OpenAPI document allows is one the service takes (a million pages of 200 is far beyond any store).
 */
export const LIST_BOUNDS = { maxPage: 1_000_000, maxLimit: 200, defaultLimit: 50 } as const;

/** `page` and `limit` of every paged list, validated (the gateway's validatePaging). */
export const PagingSchema = z.object({
  page: z.number().int().min(1).max(LIST_BOUNDS.maxPage),
  limit: z.number().int().min(1).max(LIST_BOUNDS.maxLimit),
});

export const ListQuerySchema = PagingSchema.extend({ status: z.enum(PUBLIC_STATUSES).optional() });
export type ListQuery = z.infer<typeof ListQuerySchema>;
