import { randomBytes, randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import { dynamicBrCode } from '../br-code';
import type { Charge, CreateChargeInput, PixProvider } from './provider';

interface SandboxChargeDoc {
  _id: string; // txid
  paymentId: string;
  amountCents: number;
  location: string;
  pixCopiaECola: string;
  status: 'ATIVA' | 'CONCLUIDA';
  createdAt: Date;
  expiresAt: Date;
}

const SandboxChargeModel = mongoose.model<SandboxChargeDoc>(
  'SandboxCharge',
  new Schema<SandboxChargeDoc>(
    {
      _id: { type: String, required: true },
      paymentId: { type: String, required: true, index: true },
      amountCents: { type: Number, required: true },
      location: { type: String, required: true },
      pixCopiaECola: { type: String, required: true },
      status: { type: String, required: true },
      createdAt: { type: Date, required: true },
      expiresAt: { type: Date, required: true },
    },
    { collection: 'sandbox_charges', versionKey: false },
  ),
);

/** A Pix payment the simulated customer made, as the PSP reports it in its callback. */
export interface SimulatedPix {
  endToEndId: string;
  txid: string;
  amountCents: number;
  paidAt: Date;
}

/** The simulated PSP's ISPB (the first 8 digits of every endToEndId it issues). */
const SANDBOX_ISPB = '99999999';

/** An endToEndId as BACEN shapes it: E + ISPB + yyyyMMddHHmm + 11 alphanumerics (32 chars). */
export function newEndToEndId(at = new Date()): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  const tail = randomBytes(16)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 11)
    .padEnd(11, '0');
  return `E${SANDBOX_ISPB}${stamp}${tail}`;
}

/**
 * The sandbox PSP: charges are kept in MongoDB so they outlive a restart of the adapter, and a
 * payment is simulated by the admin CLI (`sandbox pay`), which then reaches the adapter through the
 * same callback endpoint a real PSP calls.
 */
export class SandboxProvider implements PixProvider {
  constructor(private readonly options: { merchantName: string; merchantCity: string; locationHost: string }) {}

  async createCharge(input: CreateChargeInput): Promise<Charge> {
    const existing = await SandboxChargeModel.findById(input.txid).lean<SandboxChargeDoc>();
    if (existing) return { txid: existing._id, location: existing.location, pixCopiaECola: existing.pixCopiaECola };
    const location = `${this.options.locationHost}/qr/v2/${randomUUID().replace(/-/g, '')}`;
    const pixCopiaECola = dynamicBrCode({
      merchantName: this.options.merchantName,
      merchantCity: this.options.merchantCity,
      location,
    });
    const now = new Date();
    await SandboxChargeModel.updateOne(
      { _id: input.txid },
      {
        $setOnInsert: {
          paymentId: input.paymentId,
          amountCents: input.amountCents,
          location,
          pixCopiaECola,
          status: 'ATIVA',
          createdAt: now,
          expiresAt: new Date(now.getTime() + input.expiresInSeconds * 1000),
        },
      },
      { upsert: true },
    );
    const stored = await SandboxChargeModel.findById(input.txid).lean<SandboxChargeDoc>();
    if (!stored) throw new Error(`sandbox charge ${input.txid} vanished`);
    return { txid: stored._id, location: stored.location, pixCopiaECola: stored.pixCopiaECola };
  }

  /** The customer pays the payment's charge (by default its exact amount). */
  async pay(paymentId: string, amountCents?: number): Promise<SimulatedPix | null> {
    const charge = await SandboxChargeModel.findOne({ paymentId: { $eq: paymentId } }).lean<SandboxChargeDoc>();
    if (!charge) return null;
    await SandboxChargeModel.updateOne({ _id: charge._id }, { $set: { status: 'CONCLUIDA' } });
    const paidAt = new Date();
    return {
      endToEndId: newEndToEndId(paidAt),
      txid: charge._id,
      amountCents: amountCents ?? charge.amountCents,
      paidAt,
    };
  }
}
