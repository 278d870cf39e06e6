import { AdminMessages, centsToBrl, ErrorMessages } from '@pix/contracts';
import { got } from '@pix/http';
import { RpcFailure } from '@pix/messaging';
import type { MutualTls } from '../api-pix/client';
import type { AnalysisState, PixCallback } from '../api-pix/wire';
import { newEndToEndId } from './ids';
import { SandboxCobModel, SandboxPixModel, type SandboxCobDoc, type SandboxPixDoc } from './store';

/** Where and how the PSP calls the receiver back: POST {url}/pix. */
export interface WebhookTarget {
  url: string;
  headers: Record<string, string>;
  /** mTLS: the PSP presents its client certificate (apipix-style receivers require it). */
  tls: MutualTls | null;
}

/**
 * What happens on the payer's side of the sandbox PSP: a customer pays a charge, the PSP holds a
 * Pix for analysis and later clears or rejects it. Each one ends in the PSP calling the receiver's
 * webhook, as a real PSP does, so the rest of the path is the production one.
 */
export class SandboxPayer {
  constructor(private readonly webhook: WebhookTarget) {}

  /** The customer pays the charge (by default its exact amount); `held`: the PSP holds it for analysis. */
  async pay(txid: string, amountCents: number | undefined, held: boolean): Promise<SandboxPixDoc> {
    const charge = await SandboxCobModel.findById(txid).lean<SandboxCobDoc>();
    if (!charge) throw new RpcFailure(404, ErrorMessages.paymentNotFound);
    if (charge.expiresAt.getTime() <= Date.now()) throw new RpcFailure(409, AdminMessages.sandboxChargeExpired);
    const concluded = await SandboxCobModel.updateOne(
      { _id: txid, 'cob.status': 'ATIVA' },
      { $set: { 'cob.status': 'CONCLUIDA' } },
    );
    if (concluded.modifiedCount !== 1) throw new RpcFailure(409, AdminMessages.sandboxChargeClosed);
    const pix: SandboxPixDoc = {
      _id: newEndToEndId('E'),
      txid,
      amountCents: amountCents ?? charge.amountCents,
      paidAt: new Date(),
      analysis: held ? 'EM_ANALISE' : null,
    };
    await SandboxPixModel.create(pix);
    await this.notify(pix);
    return pix;
  }

  /** The analysis of the charge's held Pix ends: cleared (LIBERADO) or rejected (REJEITADO). */
  async endAnalysis(txid: string, outcome: Exclude<AnalysisState, 'EM_ANALISE'>): Promise<SandboxPixDoc> {
    const held = await SandboxPixModel.findOneAndUpdate(
      { txid: { $eq: txid }, analysis: 'EM_ANALISE' },
      { $set: { analysis: outcome } },
      { new: true },
    ).lean<SandboxPixDoc>();
    if (!held) throw new RpcFailure(409, AdminMessages.sandboxNothingHeld);
    await this.notify(held);
    return held;
  }

  private async notify(pix: SandboxPixDoc): Promise<void> {
    const body: PixCallback = {
      pix: [
        {
          endToEndId: pix._id,
          txid: pix.txid,
          valor: centsToBrl(pix.amountCents).toFixed(2),
          horario: pix.paidAt.toISOString(),
          ...(pix.analysis ? { analise: pix.analysis } : {}),
        },
      ],
    };
    await got.post(`${this.webhook.url.replace(/\/$/, '')}/pix`, {
      json: body,
      headers: this.webhook.headers,
      https: this.webhook.tls ?? {},
      timeout: { request: 5000 },
      retry: { limit: 3, methods: ['POST'] },
    });
  }
}
