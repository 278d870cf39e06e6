import type { PixCallback, PixEntry } from '@pix/api-pix';
import { callFailure, got, keptAliveAgents, type MutualTls } from '@pix/http';
import type { NotifyReceiver, SandboxBooks } from './books';
import type { Faults } from './faults';
import type { WebhookRegistrations } from './webhook-registrations';

/** A callback with no webhook to go to: kept owed, and sent once the receiver registers one. */
export class NoWebhookRegistered extends Error {
  constructor(chave: string) {
    super(`no webhook is registered for the key ${chave}`);
    this.name = 'NoWebhookRegistered';
  }
}

/**
 * How the simulator tells a receiver of a Pix, as API Pix does: POST {webhookUrl}/pix with
 * `{ pix: [...] }`, to the webhook registered for the charge's key, over mutual TLS with the
 * simulator's own client certificate. Resolves once the receiver answered 2xx; a failure rejects,
 * and the PSP's owed callbacks send it again later. A dropped callback (a fault) resolves unsent.
 */
export function callbackSender(deps: {
  books: SandboxBooks;
  registrations: WebhookRegistrations;
  faults: Faults;
  /** The simulator's client certificate and key, and the CA of the receivers' servers (PEM). */
  tls: MutualTls;
  timeoutMs: number;
}): NotifyReceiver {
  // Connections to the receiver are kept and reused, as a PSP's are: a mutual TLS handshake per
  // callback is most of a callback's cost, and a burst of redeliveries would pay it each time.
  const agent = keptAliveAgents(deps.tls);
  /** The Pix key of the charge a callback is about: whose webhook it goes to. */
  const chaveOf = async (txid: string) => {
    const charge = await deps.books.findCharge(txid);
    if (!charge) throw new Error(`a callback for the unknown charge ${txid}`);
    return charge.cob.chave;
  };
  return async (pix: PixEntry, chargeChave?: string) => {
    if (deps.faults.take(pix.devolucoes ? 'callback.devolucao' : 'callback.pix')?.kind === 'drop') return;
    const chave = chargeChave ?? (await chaveOf(pix.txid));
    const registration = await deps.registrations.find(chave);
    if (!registration) throw new NoWebhookRegistered(chave);
    const body: PixCallback = { pix: [pix] };
    const url = `${registration.webhookUrl.replace(/\/$/, '')}/pix`;
    try {
      await got.post(url, {
        json: body,
        agent,
        timeout: { request: deps.timeoutMs },
        // One try: a failure is owed (OwedCallbacks sends it again, later and later), so a payer
        // waiting on it hears of a receiver away within one timeout, not three.
        retry: { limit: 0 },
      });
    } catch (err) {
      // Told by its own words: got's error keeps the call's options (the TLS key among them).
      const failure = callFailure(err);
      throw new Error(`callback to ${new URL(url).host} failed: ${failure.message}`, { cause: failure.cause });
    }
  };
}
