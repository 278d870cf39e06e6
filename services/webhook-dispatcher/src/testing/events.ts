import { randomUUID } from 'node:crypto';
import type { PaymentEvent } from '@pix/contracts';

/** Where the test events go: an endpoint nothing is sent to (the sender is the test's own). */
export const HOOK_URL = 'https://shop.example/hooks';

/**
 * Event `sequence` of a payment, as the PAYMENTS stream carries it: a status change to approved,
 * whatever its number (what is delivered does not matter to the attempt protocol, only its ids).
 */
export function paymentEvent(
  paymentId: string,
  sequence: number,
  eventId = `evt_${randomUUID().replaceAll('-', '')}`,
): PaymentEvent {
  return {
    eventId,
    occurredAt: '2026-11-25T10:00:00.000Z',
    sequence,
    paymentId,
    storeId: 'store-1',
    webhookUrl: HOOK_URL,
    body: {
      event: 'payment.status_changed',
      id: paymentId,
      status: 'approved',
      previousStatus: 'pending',
      amount: 10,
      storeId: 'store-1',
      createdAt: '2026-11-25T09:59:00.000Z',
      webhookUrl: HOOK_URL,
      observation: null,
      email: null,
      qrCodeUrl: null,
      qrCopyPaste: null,
    },
  } as PaymentEvent;
}
