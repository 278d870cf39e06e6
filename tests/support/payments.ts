import { Streams, Subjects } from '@pix/contracts';
import type { StackNats } from '@pix/devstack';
import { createStore, type StoreCredentials } from './admin';
import { api, eventually } from './api';
import { streamMessages } from './streams';

export type PaymentBody = Record<string, unknown> & { id: string; status: string };
export type RefundBody = Record<string, unknown> & { id: string; amount: number; status: string; origin: string };

/** A store of the given stack and helpers to create and follow its payments. */
export async function paymentsClient(stack: StackNats & { gatewayUrl: string }) {
  const store: StoreCredentials = await createStore(stack, 'Lifecycle store');
  return {
    store,
    async create(amount: number): Promise<PaymentBody> {
      const res = await api<PaymentBody>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
        token: store.token,
        body: { amount },
      });
      if (res.status !== 200) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async get(id: string): Promise<PaymentBody> {
      return (await api<PaymentBody>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, { token: store.token }))
        .body;
    },
    /** The payment's refunds, newest first (the merchant's and the PSP's own). */
    async refunds(id: string): Promise<RefundBody[]> {
      const path = `/public-api/v1/payments/${id}/refunds`;
      return (await api<{ items: RefundBody[] }>(stack.gatewayUrl, 'GET', path, { token: store.token })).body.items;
    },
    async waitForStatus(id: string, status: string, timeoutMs = 15_000): Promise<PaymentBody> {
      return eventually(
        () => this.get(id),
        (p) => p.status === status,
        timeoutMs,
      );
    },
  };
}

/**
 * The payment.status_changed events of one payment on the PAYMENTS stream, once at least `atLeast`
 * of them are there (the outbox relay publishes shortly after the change is visible).
 */
export async function statusChangedEvents(stack: StackNats, paymentId: string, atLeast = 0, timeoutMs?: number) {
  return eventually(
    () => paymentStatusChanges(stack, paymentId),
    (events) => events.length >= atLeast,
    timeoutMs,
  );
}

async function paymentStatusChanges(stack: StackNats, paymentId: string) {
  const all = await streamMessages<{ eventId: string; body: { id: string; status: string; previousStatus: string } }>(
    stack,
    Streams.payments.name,
    Subjects.paymentEventsOfType('payment.status_changed'),
  );
  return all.filter((m) => m.data.body.id === paymentId);
}
