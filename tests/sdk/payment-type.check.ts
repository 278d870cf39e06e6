/**
 * Type-level test of the SDK: it compiles only while the generated Payment is exactly the shape
 * below. `make lint` type-checks it (tsconfig.test.json); tests/sdk/payment-type.test.ts shows
 * that a changed field of the Payment breaks the compile.
 */
import type { Dispute, Payment, PaymentStatus, PaymentWebhook, Refund, Webhook } from '@pix-payments/client';

/** True only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

export type PaymentIsExact = Expect<
  Equal<
    Payment,
    {
      id: string;
      status: PaymentStatus;
      amount: number;
      storeId: string;
      livemode: boolean;
      createdAt: string;
      webhookUrl: string | null;
      observation: string | null;
      email: string | null;
      qrCodeUrl: string | null;
      qrCopyPaste: string | null;
      isPublic: boolean;
      refundedAmount: number;
      expiresAt: string;
      dispute?: Dispute;
    }
  >
>;
export type RefundIsExact = Expect<
  Equal<
    Refund,
    {
      id: string;
      paymentId: string;
      livemode: boolean;
      endToEndId: string;
      amount: number;
      status: 'pending' | 'succeeded' | 'failed';
      reason: string | null;
      origin: 'merchant' | 'platform' | 'psp';
      nature: 'med_fraud' | 'med_operational' | 'other' | null;
      createdAt: string;
      settledAt: string | null;
      failureReason: string | null;
    }
  >
>;
export type StatusesAreExact = Expect<
  Equal<
    PaymentStatus,
    'pending' | 'approved' | 'review' | 'not_approved' | 'paid' | 'withdrawal_processing' | 'receipt_sent' | 'rejected'
  >
>;
export type WebhookEventsAreExact = Expect<
  Equal<PaymentWebhook['event'], 'payment.created' | 'payment.status_changed'>
>;
export type AllWebhookEventsAreExact = Expect<
  Equal<
    Webhook['event'],
    | 'payment.created'
    | 'payment.status_changed'
    | 'refund.created'
    | 'refund.succeeded'
    | 'refund.failed'
    | 'payment.dispute_opened'
    | 'payment.dispute_closed'
    | 'payment.dispute_reminder'
  >
>;

declare const payment: Payment;
declare const hook: PaymentWebhook;

// @ts-expect-error the amount is `amount`, there is no `value`
export const value = payment.value;
// @ts-expect-error the amount is a number of BRL, not a string
export const text: string = payment.amount;
// @ts-expect-error only a status_changed event has a previous status
export const previous = hook.previousStatus;
export const narrowed = hook.event === 'payment.status_changed' ? hook.previousStatus : null;
