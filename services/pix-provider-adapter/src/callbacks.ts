import type { TLSSocket } from 'node:tls';
import express, { type Request, type Router } from 'express';
import { brlToCents } from '@pix/contracts';
import { publishEvent, type JetStreamClient } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { sameSecret } from '@pix/runtime';
import { factFromRefund, factsFromPix, refundFromDevolucao, type PixFact } from './api-pix/transformers';
import { PixCallbackSchema, type PixEntry, type ReceivedPix } from './api-pix/wire';
import type { ToldFacts } from './told-facts';

export const CALLBACK_SECRET_HEADER = 'x-psp-callback-secret';

/**
 * How the PSP proves it is the PSP: a client certificate signed by the PSP's CA (apipix, the TLS
 * server already refused anyone else), or the sandbox's shared secret in a header.
 */
export type CallbackAuth = { kind: 'mtls' } | { kind: 'secret'; secret: string };

function authenticated(req: Request, auth: CallbackAuth): boolean {
  if (auth.kind === 'mtls') return (req.socket as Partial<TLSSocket>).authorized === true;
  const given = req.get(CALLBACK_SECRET_HEADER);
  return given !== undefined && sameSecret(given, auth.secret);
}

/**
 * The PSP's callbacks (POST {webhook}/pix). Each received Pix becomes a fact on the PIX stream with
 * the endToEndId in its message id, so a PSP that calls twice produces one event. The PSP gets its
 * 200 only once JetStream has stored the events; otherwise it retries, as PSPs do.
 */
export function callbackRouter(options: {
  js: JetStreamClient;
  told: ToldFacts;
  auth: CallbackAuth;
  logger: Logger;
}): Router {
  const router = express.Router();
  router.post('/pix', express.json({ limit: '256kb' }), async (req, res) => {
    if (!authenticated(req, options.auth)) {
      res.status(401).json({ message: 'unauthorized' });
      return;
    }
    const parsed = PixCallbackSchema.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({ message: 'invalid callback body' });
      return;
    }
    await receivePix(options.js, options.told, parsed.data.pix, options.logger);
    res.status(200).json({ received: parsed.data.pix.length });
  });
  return router;
}

/**
 * What the PSP tells of each Pix (a callback, a reconciliation's listing, a charge read before it
 * expires) becomes facts on the PIX stream, with the endToEndId in their message ids, so a PSP
 * telling twice produces one fact; so does each of its refunds (devoluções) the PSP settled.
 * Resolves once JetStream stored them all (only then is the PSP answered, or the sandbox PSP's
 * callback done) with how many of them JetStream had not stored before: what this telling added.
 */
export async function receivePix(
  js: JetStreamClient,
  told: ToldFacts,
  pixes: ReceivedPix[],
  logger: Logger,
): Promise<number> {
  /** Stores a fact unless this process stored it lately; whether JetStream had not stored it before. */
  const tell = async (fact: PixFact): Promise<boolean> => {
    if (told.has(fact.msgId)) return false;
    const { duplicate } = await publishEvent(js, fact.subject, fact.payload, fact.msgId);
    told.add(fact.msgId);
    return !duplicate;
  };
  let added = 0;
  for (const pix of pixes.filter(ofACharge)) {
    const amountCents = brlToCents(Number(pix.valor));
    if (amountCents === null) continue;
    for (const fact of factsFromPix(pix, amountCents)) {
      if (!(await tell(fact))) continue;
      added++;
      logger.info({ txid: pix.txid, endToEndId: pix.endToEndId, subject: fact.subject }, 'pix received, says the PSP');
    }
    for (const devolucao of pix.devolucoes ?? []) {
      const fact = factFromRefund(refundFromDevolucao(devolucao), pix);
      if (!fact || !(await tell(fact))) continue;
      added++;
      logger.info({ txid: pix.txid, pspRefundId: devolucao.id, subject: fact.subject }, 'refund settled, says the PSP');
    }
  }
  return added;
}

/** A Pix paid to a charge (it has a txid): the only kind the platform asks for. */
function ofACharge(pix: ReceivedPix): pix is PixEntry {
  return pix.txid !== undefined;
}
