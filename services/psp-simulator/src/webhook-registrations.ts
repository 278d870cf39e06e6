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
 *
 * Each registration found is also kept in memory, so a callback costs no read: a simulator is one
 * process with a database of its own (Kubernetes runs one replica), and every change of a
 * registration goes through this object, which keeps what it stored. A key without one is read
 * each time, so a registration made meanwhile is found at once.
 */
export class WebhookRegistrations {
  private readonly known = new Map<string, WebhookRegistration>();
  /** Counts the changes made through this object: a read that a change overtook is not kept. */
  private changes = 0;

  static async open(logger?: Logger): Promise<WebhookRegistrations> {
    await syncIndexes([RegistrationModel], logger);
    return new WebhookRegistrations();
  }

  /** Registers (or moves) the key's webhook; the registration as stored. */
  async put(chave: string, webhookUrl: string): Promise<WebhookRegistration> {
    // Forgotten first: a put that fails may have stored the registration or not.
    this.known.delete(chave);
    const change = ++this.changes;
    const stored = (await RegistrationModel.findOneAndUpdate(
      { _id: chave },
      { $set: { webhookUrl }, $setOnInsert: { criacao: new Date() } },
      { upsert: true, new: true, lean: true },
    )) as WebhookRegistration;
    // Another change since this one was sent may have been stored before it or after it.
    if (this.changes === change) this.known.set(chave, stored);
    return stored;
  }

  async find(chave: string): Promise<WebhookRegistration | null> {
    const known = this.known.get(chave);
    if (known) return known;
    const changesBefore = this.changes;
    const stored = await RegistrationModel.findById(chave).lean<WebhookRegistration>().exec();
    if (stored && this.changes === changesBefore) this.known.set(chave, stored);
    return stored;
  }

  /** Removes the key's webhook: false when it had none. */
  async remove(chave: string): Promise<boolean> {
    this.known.delete(chave);
    this.changes++;
    const removed = await RegistrationModel.deleteOne({ _id: chave });
    return removed.deletedCount === 1;
  }
}
