import { z } from 'zod';
import { modeName } from './modes';
import { PaymentSchema } from './payment';

/** What a KV key may hold (JetStream's rule): a store id outside it has no views. */
const KEY_TOKEN = /^[-/=\w]+$/;

/**
 * The PAYMENT_VIEWS key-value bucket (JetStream KV): each payment as the public API shows it,
 * written by payments before it publishes a change's events or answers for it, read by the
 * gateway to answer a get without asking payments (docs/decisions/payment-read-model.md).
 */
export const PaymentViewsBucket = {
  name: 'PAYMENT_VIEWS',
  /** A key's value is its payment's newest view; nothing reads an older one. */
  history: 1,
  /**
   * How long a view is kept after its last change: a get of an older payment reads the database
   * (the view is missing), so the bucket holds a week of changed payments, not every payment ever.
   */
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  /** payments alone writes it (and reads it, to never overwrite a newer view); the gateway reads it. */
  writers: ['payments'],
  readers: ['gateway', 'payments'],
  /**
   * A payment's key names its mode and store: a token's get asks for its own mode and store only,
   * so another store's or mode's payment is no view at all. Undefined when an id cannot be a key.
   */
  key: (storeId: string, livemode: boolean, paymentId: string): string | undefined =>
    KEY_TOKEN.test(storeId) && KEY_TOKEN.test(paymentId) ? `${modeName(livemode)}.${storeId}.${paymentId}` : undefined,
} as const;

/** A view: the payment as the public API returns it, and the revision of the payment it shows. */
export const PaymentViewSchema = z.object({ rev: z.number().int().positive(), payment: PaymentSchema });
export type PaymentView = z.infer<typeof PaymentViewSchema>;
