// Wrote webhooks.json once: fixed webhooks signed the Standard Webhooks way with the standardwebhooks
// package's own signer (not any SDK's verifier), so every SDK checks its verify against one truth.
// The fixtures never change with the clock: each case says the `now` to verify at. Run it again
// only to change the cases (node clients/conformance/generate-webhooks.mjs); it draws new secrets.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { URL } from 'node:url';
import { Webhook } from 'standardwebhooks';

const secret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;
const current = secret();
const previous = secret();
const stranger = secret();
const sent = 1764151200; // 2025-11-26T10:00:00Z, the webhook-timestamp of every fixture
const paymentId = '3f1c2b7a-9d4e-4c1a-8b2f-6e5d4c3b2a19';

// Bodies as the dispatcher sends them: `event` first, then the fields in the schema's order.
const paymentCreated = JSON.stringify({
  event: 'payment.created',
  id: paymentId,
  status: 'pending',
  amount: 25.5,
  storeId: 'b8e2f1d0-5c4b-4a3e-9f2d-1c0b9a8e7d6f',
  livemode: false,
  createdAt: '2025-11-26T09:59:59.512Z',
  webhookUrl: 'https://loja.example.com.br/webhooks/pix',
  observation: 'Pedido nº 42 — café',
  email: 'cliente@example.com',
  qrCodeUrl: `https://api.example.com/pay/${paymentId}/qr.png`,
  qrCopyPaste: '00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cobv/9d4e4c1a5204000053039865802BR6304ABCD',
});
const refundSucceeded = JSON.stringify({
  event: 'refund.succeeded',
  id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
  paymentId,
  livemode: false,
  endToEndId: 'E00000000202511260959abcdef012345',
  amount: 10.5,
  status: 'succeeded',
  reason: 'Troca de produto',
  origin: 'merchant',
  nature: null,
  createdAt: '2025-11-26T09:59:58.000Z',
  settledAt: '2025-11-26T09:59:59.000Z',
  failureReason: null,
  storeId: 'b8e2f1d0-5c4b-4a3e-9f2d-1c0b9a8e7d6f',
});
const disputeReminder = JSON.stringify({
  event: 'payment.dispute_reminder',
  paymentId,
  storeId: 'b8e2f1d0-5c4b-4a3e-9f2d-1c0b9a8e7d6f',
  livemode: false,
  status: 'open',
  reason: 'Pix feito sob fraude',
  kind: 'golpe',
  amountAtRisk: 25.5,
  openedAt: '2025-11-24T10:00:00.000Z',
  deadlineAt: '2025-11-27T10:00:00.000Z',
  defense: null,
  decision: null,
  closedAt: null,
  hoursLeft: 24,
});
const foreign = JSON.stringify({ event: 'invoice.paid', id: paymentId });

function signed(body, { id, keys = [current], timestamp = sent }) {
  const signature = keys.map((key) => new Webhook(key).sign(id, new Date(timestamp * 1000), body)).join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

const created = signed(paymentCreated, { id: 'evt_0123456789abcdef0123456789abcdef' });
const cases = [
  {
    name: 'a valid payment.created',
    body: paymentCreated,
    headers: created,
    now: sent + 2,
    expect: JSON.parse(paymentCreated),
  },
  {
    name: 'a valid refund.succeeded',
    body: refundSucceeded,
    headers: signed(refundSucceeded, { id: 'evt_fedcba9876543210fedcba9876543210' }),
    now: sent + 2,
    expect: JSON.parse(refundSucceeded),
  },
  {
    name: 'a valid payment.dispute_reminder',
    body: disputeReminder,
    headers: signed(disputeReminder, { id: 'evt_5a4b3c2d1e0f5a4b3c2d1e0f5a4b3c2d' }),
    now: sent + 2,
    expect: JSON.parse(disputeReminder),
  },
  {
    name: 'still valid at the edge of the 5 minutes',
    body: paymentCreated,
    headers: created,
    now: sent + 300,
    expect: { event: 'payment.created', id: paymentId },
  },
  {
    name: 'a tampered body',
    body: paymentCreated.replace('25.5', '2.55'),
    headers: created,
    now: sent + 2,
    error: true,
  },
  {
    name: 'a timestamp more than 5 minutes old',
    body: paymentCreated,
    headers: created,
    now: sent + 301,
    error: true,
  },
  {
    name: 'a timestamp more than 5 minutes ahead',
    body: paymentCreated,
    headers: created,
    now: sent - 301,
    error: true,
  },
  {
    name: 'during a rotation: the old and the new secret each sign, the new one verifies',
    body: paymentCreated,
    headers: signed(paymentCreated, { id: 'evt_00112233445566778899aabbccddeeff', keys: [previous, current] }),
    now: sent + 2,
    expect: { event: 'payment.created', id: paymentId },
  },
  {
    name: 'signed by another secret',
    body: paymentCreated,
    headers: signed(paymentCreated, { id: 'evt_0123456789abcdef0123456789abcdef', keys: [stranger] }),
    now: sent + 2,
    error: true,
  },
  {
    name: 'signed with the secret but not an event of this API',
    body: foreign,
    headers: signed(foreign, { id: 'evt_ffeeddccbbaa99887766554433221100' }),
    now: sent + 2,
    error: true,
  },
  {
    name: 'no signature header',
    body: paymentCreated,
    headers: { 'webhook-id': created['webhook-id'], 'webhook-timestamp': created['webhook-timestamp'] },
    now: sent + 2,
    error: true,
  },
];

const out = new URL('./webhooks.json', import.meta.url);
fs.writeFileSync(out, JSON.stringify({ format: 1, secret: current, cases }, null, 2) + '\n');
process.stdout.write(`wrote ${out.pathname}\n`);
