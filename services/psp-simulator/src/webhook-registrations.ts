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
 * A registration read is also kept in memory, so a callback costs no read: a simulator is one
 * process with a database of its own (Kubernetes runs one replica), and every change of a
 * registration goes through this object. A change forgets the key as it starts and as it ends, and
 * a read is kept only when no change started, ended or was under way while it ran, so what is kept
 * is what the database holds. A key without a registration is read each time.
 */
export class WebhookRegistrations {
  private readonly known = new Map<string, WebhookRegistration>();
  /** Changes started and ended so far, and those under way. */
  private changeSteps = 0;
  private changesUnderWay = 0;

  static async open(logger?: Logger): Promise<WebhookRegistrations> {
    await syncIndexes([RegistrationModel], logger);
    return new WebhookRegistrations();
  }

  /** Registers (or moves) the key's webhook; the registration as stored. */
  put(chave: string, webhookUrl: string): Promise<WebhookRegistration> {
    return this.change(
      chave,
      async () =>
        (await RegistrationModel.findOneAndUpdate(
          { _id: chave },
          { $set: { webhookUrl }, $setOnInsert: { criacao: new Date() } },
          { upsert: true, new: true, lean: true },
        )) as WebhookRegistration,
    );
  }

  async find(chave: string): Promise<WebhookRegistration | null> {
    const known = this.known.get(chave);
    if (known) return known;
    const stepsBefore = this.changeSteps;
    const stored = await RegistrationModel.findById(chave).lean<WebhookRegistration>().exec();
    if (stored && this.changeSteps === stepsBefore && this.changesUnderWay === 0) this.known.set(chave, stored);
    return stored;
  }

  /** Removes the key's webhook: false when it had none. */
  remove(chave: string): Promise<boolean> {
    return this.change(chave, async () => (await RegistrationModel.deleteOne({ _id: chave })).deletedCount === 1);
  }

  private async change<T>(chave: string, write: () => Promise<T>): Promise<T> {
    this.known.delete(chave);
    this.changeSteps++;
    this.changesUnderWay++;
    try {
      return await write();
    } finally {
      this.known.delete(chave);
      this.changeSteps++;
      this.changesUnderWay--;
    }
  }
}
