import { toPayment, paymentEventData } from './presenter';
import { paymentDoc } from './testing/flows';

/** The payment's fields in the spec (2.1 and 6), in its order, with its mode after its store. */
const SPEC_FIELDS = [
  'id',
  'status',
  'amount',
  'storeId',
  'livemode',
  'createdAt',
  'webhookUrl',
  'observation',
  'email',
  'qrCodeUrl',
  'qrCopyPaste',
];

describe('a payment presented', () => {
  const doc = paymentDoc({ amountCents: 2550, webhookUrl: 'https://shop.example/hook' });

  it('to the API: the spec fields, isPublic, and what refunds and expiry add', () => {
    expect(Object.keys(toPayment(doc))).toEqual([...SPEC_FIELDS, 'isPublic', 'refundedAmount', 'expiresAt']);
    expect(toPayment(doc)).toMatchObject({ amount: 25.5, refundedAmount: 0, expiresAt: doc.expiresAt.toISOString() });
  });

  it('tells its mode: live only when created live (one from before modes is a test one)', () => {
    expect(toPayment(paymentDoc({ livemode: true })).livemode).toBe(true);
    expect(toPayment(paymentDoc({ livemode: false })).livemode).toBe(false);
    const { livemode: _none, ...beforeModes } = paymentDoc();
    expect(toPayment(beforeModes).livemode).toBe(false);
    expect(paymentEventData(paymentDoc({ livemode: true })).livemode).toBe(true);
  });

  it("in a payment webhook: the spec's fields and its mode, nothing more", () => {
    expect(Object.keys(paymentEventData(doc))).toEqual(SPEC_FIELDS);
    expect(paymentEventData(doc)).toMatchObject({ id: doc._id, amount: 25.5, webhookUrl: 'https://shop.example/hook' });
  });
});
