import { generateKeyPairSync } from 'node:crypto';
import { headers } from '@nats-io/transport-node';
import { FactHeaders } from '@pix/contracts';
import { FactSigner, FactVerifier } from '@pix/messaging';

/** What signing costs each money-moving fact (docs/security.md: signed facts), measured in this process. */
export interface FactSigningCost {
  /** CPU per signature and per verification, µs (the median of rounds, each the mean of its facts). */
  signMicros: number;
  verifyMicros: number;
  /** Bytes the two headers add to a message that already has headers (every fact carries Nats-Msg-Id). */
  headerBytes: number;
  payloadBytes: number;
}

/** A payment.status_changed event as payments publishes it: the larger kind of fact. */
const EVENT = JSON.stringify({
  eventId: 'evt_8f14e45fceea167a5a36dedd4bea2543',
  occurredAt: '2026-11-28T10:00:00.000Z',
  sequence: 2,
  paymentId: '0b9d8c52-5a0f-4b5e-9a0c-1f2e3d4c5b6a',
  storeId: 'store_7c9e6679f2a84c2c',
  webhookUrl: 'https://merchant.example.com/hooks/pix',
  body: {
    event: 'payment.status_changed',
    id: '0b9d8c52-5a0f-4b5e-9a0c-1f2e3d4c5b6a',
    storeId: 'store_7c9e6679f2a84c2c',
    amount: 125.5,
    status: 'approved',
    previousStatus: 'pending',
    webhookUrl: 'https://merchant.example.com/hooks/pix',
    createdAt: '2026-11-28T09:59:00.000Z',
    updatedAt: '2026-11-28T10:00:00.000Z',
  },
});

const ROUNDS = 9;
const PER_ROUND = 2000;

function cpuMicrosPer(count: number, work: () => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export function measureFactSigning(): FactSigningCost {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const signer = new FactSigner(privateKey);
  const verifier = new FactVerifier([publicKey]);
  const subject = 'payments.events.status_changed';
  const msgId = 'evt_8f14e45fceea167a5a36dedd4bea2543';
  const payload = new TextEncoder().encode(EVENT);
  const signed = headers();
  signed.set('Nats-Msg-Id', msgId);
  signer.sign(signed, subject, msgId, payload);
  const fact = { subject, headers: signed, data: payload };
  if (!verifier.check(fact).genuine) throw new Error('the signed fact does not verify');
  const sign = [];
  const verify = [];
  for (let round = 0; round < ROUNDS; round++) {
    sign.push(cpuMicrosPer(PER_ROUND, () => signer.sign(headers(), subject, msgId, payload)));
    verify.push(cpuMicrosPer(PER_ROUND, () => verifier.check(fact)));
  }
  const headerBytes = [FactHeaders.keyId, FactHeaders.signature].reduce(
    (sum, name) => sum + Buffer.byteLength(`${name}: ${signed.get(name)}\r\n`),
    0,
  );
  return {
    signMicros: median(sign),
    verifyMicros: median(verify),
    headerBytes,
    payloadBytes: payload.length,
  };
}
