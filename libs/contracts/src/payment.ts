import { z } from 'zod';
import { PAYMENT_STATUSES, PUBLIC_STATUSES } from './statuses';

/** A payment as the public API returns it (spec 2.1): the same shape from create, get and list. */
export const PaymentSchema = z.object({
  id: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  amount: z.number(),
  storeId: z.string(),
  createdAt: z.string(),
  webhookUrl: z.string().nullable(),
  observation: z.string().nullable(),
  email: z.string().nullable(),
  qrCodeUrl: z.string().nullable(),
  qrCopyPaste: z.string().nullable(),
  isPublic: z.boolean(),
});
export type Payment = z.infer<typeof PaymentSchema>;

/** The list envelope (spec 2.3). */
export const PaymentListSchema = z.object({
  items: z.array(PaymentSchema),
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
});
export type PaymentList = z.infer<typeof PaymentListSchema>;

/** The error body (spec 2.4). */
export const ErrorBodySchema = z.object({
  statusCode: z.number().int(),
  message: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** A validated create request, as the gateway hands it to payments (amount in centavos). */
export const CreatePaymentInputSchema = z.object({
  amountCents: z.number().int(),
  email: z.string().nullable(),
  observation: z.string().nullable(),
  webhookUrl: z.string().nullable(),
});
export type CreatePaymentInput = z.infer<typeof CreatePaymentInputSchema>;

export const ListQuerySchema = z.object({
  page: z.number().int().min(1),
  limit: z.number().int().min(1).max(200),
  status: z.enum(PUBLIC_STATUSES).optional(),
});
export type ListQuery = z.infer<typeof ListQuerySchema>;
