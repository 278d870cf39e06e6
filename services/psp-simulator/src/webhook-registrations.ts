import mongoose, { Schema } from 'mongoose';
import type { Logger } from '@pix/observability';
import { syncIndexes } from '@pix/runtime';

/** A callback registration (PUT /webhook/{chave}): where the PSP POSTs the Pix received to that key. */
export interface WebhookRegistration {
  _id: string; // chave
  webhookUrl: string;
  criacao: Date;
}

const RegistrationModel = mongoose.model<WebhookRegistration>(
  'PspWebhook',
  new Schema<WebhookRegistration>(
    {
      _id: { type: String, required: true },
      webhookUrl: { type: String, required: true },
      criacao: { type: Date, required: true },
    },
    { collection: 'psp_webhooks', versionKey: false },
  ),
);

/**
 * The receivers' callback registrations, one per Pix key, in the simulator's database (they
 * outlive a restart, as a PSP's do). The only module of the simulator that talks to the database
 * besides the PSP's books (books/).
 */
export class WebhookRegistrations {
  static async open(logger?: Logger): Promise<WebhookRegistrations> {
    await syncIndexes([RegistrationModel], logger);
    return new WebhookRegistrations();
  }

  /** Registers (or moves) the key's webhook; the registration as stored. */
  async put(chave: string, webhookUrl: string): Promise<WebhookRegistration> {
    const stored = await RegistrationModel.findOneAndUpdate(
      { _id: chave },
      { $set: { webhookUrl }, $setOnInsert: { criacao: new Date() } },
      { upsert: true, new: true, lean: true },
    );
    return stored as WebhookRegistration;
  }

  find(chave: string): Promise<WebhookRegistration | null> {
    return RegistrationModel.findById(chave).lean<WebhookRegistration>().exec();
  }

  /** Removes the key's webhook: false when it had none. */
  async remove(chave: string): Promise<boolean> {
    const removed = await RegistrationModel.deleteOne({ _id: chave });
    return removed.deletedCount === 1;
  }
}
