import { randomUUID } from 'node:crypto';
import { DomainError } from '@pix/contracts';
import { createPayment, FIRST_CHARGE_RETRY_MS } from './create-payment';
import { dueIn, eventsIn, flowDeps, testConfig } from './testing/flows';

const input = {
  amountCents: 4250,
  email: 'a@example.com',
  observation: 'order 7',
  webhookUrl: null,
  expiresInSeconds: null,
};

describe('a create', () => {
  it('stores a pending payment with its charge, and owes payment.created and the expiry', async () => {
    const flows = flowDeps();
    const before = Date.now();
    const payment = await createPayment(flows.deps, { storeId: 'store-1', livemode: false, input, isPublic: true });
    expect(payment).toMatchObject({
      status: 'pending',
      amount: 42.5,
      storeId: 'store-1',
      qrCopyPaste: expect.any(String),
    });
    const stored = await flows.store.byId(payment.id);
    expect(stored).toMatchObject({ chargeCreated: true, rev: 1, eventSeq: 1 });
    expect(eventsIn(flows.published).map((e) => [e.sequence, e.body.event])).toEqual([[1, 'payment.created']]);
    const [expiry, ...others] = dueIn(flows.published);
    expect(others).toEqual([]);
    expect(expiry?.body).toMatchObject({ kind: 'expiry', at: stored?.expiresAt.toISOString() });
    expect(stored!.expiresAt.getTime() - before).toBeGreaterThanOrEqual(testConfig.PIX_CHARGE_TTL);
  });

  it("gives the charge the merchant's expiresIn: its expiry, the PSP's expiracao and expiresAt", async () => {
    const flows = flowDeps();
    const before = Date.now();
    const payment = await createPayment(flows.deps, {
      storeId: 'store-1',
      livemode: false,
      input: { ...input, expiresInSeconds: 600 },
      isPublic: true,
    });
    const expiresAt = Date.parse(payment.expiresAt);
    expect(expiresAt - before).toBeGreaterThanOrEqual(600_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(600_000);
    expect(dueIn(flows.published)).toEqual([expect.objectContaining({ at: new Date(expiresAt) })]);
    expect(flows.adapter.charges[0]?.expiresInSeconds).toBeGreaterThanOrEqual(599);
    expect(flows.adapter.charges[0]?.expiresInSeconds).toBeLessThanOrEqual(600);
    expect(payment.refundedAmount).toBe(0);
  });

  it('stores the payment without QR data when the PSP cannot be reached, a retry of the charge owed', async () => {
    const flows = flowDeps();
    flows.adapter.reachable = false;
    const payment = await createPayment(flows.deps, { storeId: 'store-1', livemode: false, input, isPublic: true });
    expect(payment).toMatchObject({ status: 'pending', qrCopyPaste: null, qrCodeUrl: null });
    expect(await flows.store.byId(payment.id)).toMatchObject({ chargeCreated: false });
    const retry = dueIn(flows.published).find((d) => d.body.kind === 'charge');
    expect(retry?.body).toMatchObject({ paymentId: payment.id, attempt: 1 });
    expect(retry!.at.getTime()).toBeLessThanOrEqual(Date.now() + FIRST_CHARGE_RETRY_MS);
  });
});

describe('a create that may be repeated (a caller-chosen id)', () => {
  it('returns the first payment for a repeated id, with one payment.created', async () => {
    const flows = flowDeps();
    const paymentId = randomUUID();
    const first = await createPayment(flows.deps, {
      storeId: 'store-1',
      livemode: false,
      input,
      isPublic: true,
      paymentId,
    });
    const again = await createPayment(flows.deps, {
      storeId: 'store-1',
      livemode: false,
      input: { ...input, amountCents: 1 },
      isPublic: false,
      paymentId,
    });
    expect(again).toEqual(first);
    expect(first.id).toBe(paymentId);
    expect(eventsIn(flows.published).map((e) => e.body.event)).toEqual(['payment.created']);
  });

  it("refuses an id another store's payment has, as if there were none", async () => {
    const flows = flowDeps();
    const paymentId = randomUUID();
    await createPayment(flows.deps, { storeId: 'store-1', livemode: false, input, isPublic: true, paymentId });
    const other = createPayment(flows.deps, { storeId: 'store-2', livemode: false, input, isPublic: true, paymentId });
    await expect(other).rejects.toThrow(DomainError);
    await expect(other).rejects.toMatchObject({ code: 'payment_not_found' });
    expect(await flows.store.byId(paymentId)).toMatchObject({ storeId: 'store-1', amountCents: 4250 });
  });

  it("refuses an id the store's other mode has, as if there were none", async () => {
    const flows = flowDeps();
    const paymentId = randomUUID();
    await createPayment(flows.deps, { storeId: 'store-1', livemode: false, input, isPublic: true, paymentId });
    const live = createPayment(flows.deps, { storeId: 'store-1', livemode: true, input, isPublic: true, paymentId });
    await expect(live).rejects.toMatchObject({ code: 'payment_not_found' });
    expect(await flows.store.byId(paymentId)).toMatchObject({ livemode: false });
  });
});

describe('a live create', () => {
  it('stores a live payment, and says so in the payment and in payment.created', async () => {
    const flows = flowDeps();
    const payment = await createPayment(flows.deps, { storeId: 'store-1', livemode: true, input, isPublic: true });
    expect(payment.livemode).toBe(true);
    expect(await flows.store.byId(payment.id)).toMatchObject({ livemode: true });
    expect(eventsIn(flows.published).map((e) => [e.body.event, e.body.livemode])).toEqual([['payment.created', true]]);
  });
});
