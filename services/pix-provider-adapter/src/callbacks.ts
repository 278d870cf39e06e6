import type { TLSSocket } from 'node:tls';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { brlToCents, type ModeName } from '@pix/contracts';
import { publishEvent, type JetStreamClient } from '@pix/messaging';
import type { Counter, Logger } from '@pix/observability';
import { factFromRefund, factsFromPix, refundFromDevolucao, type PixFact } from './api-pix/transformers';
import { PixCallbackSchema, type PixEntry, type ReceivedPix } from '@pix/api-pix';
import { ConnectionPins, type CallbackPin } from './callback-pins';
import { readBack, type CallbackRefusal } from './callback-readback';
import type { PixProvider } from './providers/provider';
import type { ToldFacts } from './told-facts';

export interface CallbackOptions {
  /** The connection whose PSP calls: its facts are of its mode. */
  connection: { name: ModeName; livemode: boolean };
  js: JetStreamClient;
  told: ToldFacts;
  /** Where each Pix a callback tells of is read back. */
  provider: PixProvider;
  /**
   * How the PSP proves it is the PSP: a client certificate signed by the PSP's CA (the TLS server
   * refused anyone else) that one of these pins names, since that CA also certifies the PSP's
   * merchants.
   */
  pins: readonly CallbackPin[];
  /** psp_callbacks_refused_total, by connection and reason. */
  refused: Counter<'connection' | 'reason'>;
  logger: Logger;
}

/** Who called: the PSP, nobody known (401), or a certificate of the PSP's CA that no pin names (403). */
function caller(
  req: Request,
  pins: ConnectionPins,
  options: CallbackOptions,
): 'psp' | 'unauthenticated' | 'foreign_certificate' {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return 'unauthenticated';
  const { pinned, spki, subject, issuer } = pins.check(socket);
  if (pinned) return 'psp';
  // Public parts of the certificate only: its own pin is what an operator adds for a PSP's renewed one.
  options.logger.warn(
    {
      connection: options.connection.name,
      reason: 'foreign_certificate',
      spki,
      subject,
      issuer,
      remoteAddress: socket.remoteAddress,
    },
    "PSP callback refused: a certificate of the PSP's CA that the connection's pins do not name",
  );
  return 'foreign_certificate';
}

/**
 * The PSP's callbacks (POST {webhook}/pix). A callback only says "look": each Pix it tells of is
 * read back at the PSP (readBack, GET /pix/{e2eid}) and what the PSP answers becomes facts on the
 * PIX stream, with the endToEndId in their message ids, so a PSP that calls twice produces one
 * event. A Pix the PSP does not hold as told (not found, another txid or amount) is refused: not
 * applied, logged and counted once, and the PSP gets its 200 (calling again would change nothing;
 * reconciliation applies whatever the PSP does hold). A Pix that cannot be read back (the PSP away
 * or slow) is answered 503 once the others are stored: the PSP calls again, and reconciliation lists
 * it in any case, so none is lost; this keeps no schedule of its own. The PSP gets its 200 only
 * once JetStream has stored the facts.
 */
export function callbackRouter(options: CallbackOptions): Router {
  const { logger, refused, connection } = options;
  const refuse = (reason: CallbackRefusal) => refused.inc({ connection: connection.name, reason });
  const pins = new ConnectionPins(options.pins);
  const authenticate = (req: Request, res: Response, next: NextFunction) => {
    const who = caller(req, pins, options);
    if (who === 'psp') return next();
    if (who === 'unauthenticated') {
      res.status(401).json({ message: 'unauthorized' });
      return;
    }
    refuse(who);
    res.status(403).json({ message: 'forbidden' });
  };
  /** The PSP's account of a Pix a callback told of; 'refused' or 'unread' when there is none to believe. */
  const believe = async (pix: PixEntry): Promise<PixEntry | 'refused' | 'unread'> => {
    const told = { endToEndId: pix.endToEndId, txid: pix.txid, valor: pix.valor };
    try {
      const found = await readBack(options.provider, pix);
      if ('believed' in found) return found.believed;
      refuse(found.refused);
      const held = 'held' in found ? { txid: found.held.txid, valor: found.held.valor } : null;
      logger.warn(
        { reason: found.refused, told, held },
        'PSP callback refused: the PSP does not hold the Pix it told of',
      );
      return 'refused';
    } catch (err) {
      refuse('readback_failed');
      // The message only: an error of the PSP's client may carry its request's options.
      const error = err instanceof Error ? err.message : String(err);
      logger.warn(
        { reason: 'readback_failed', told, error },
        'PSP callback not taken yet: its Pix could not be read back',
      );
      return 'unread';
    }
  };

  const router = express.Router();
  router.post('/pix', authenticate, express.json({ limit: '256kb' }), async (req, res) => {
    const parsed = PixCallbackSchema.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({ message: 'invalid callback body' });
      return;
    }
    const outcomes = await Promise.all(parsed.data.pix.filter(ofACharge).map(believe));
    const believed = outcomes.filter((outcome): outcome is PixEntry => typeof outcome === 'object');
    await receivePix(options.js, options.told, believed, connection.livemode, logger);
    if (outcomes.includes('unread')) {
      res.status(503).json({ message: 'the PSP could not be read back; call again' });
      return;
    }
    res.status(200).json({ received: believed.length });
  });
  return router;
}

/**
 * What the PSP tells of each Pix (a callback's Pix as read back, a reconciliation's listing, a
 * charge read before it expires) becomes facts on the PIX stream, with
 * the endToEndId in their message ids, so a PSP telling twice produces one fact; so does each of
 * its refunds (devoluções) the PSP settled.
 * Resolves once JetStream stored them all (only then is the PSP answered) with how many of them JetStream had not stored before: what this telling added.
 */
export async function receivePix(
  js: JetStreamClient,
  told: ToldFacts,
  pixes: ReceivedPix[],
  livemode: boolean,
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
    for (const fact of factsFromPix(pix, amountCents, livemode)) {
      if (!(await tell(fact))) continue;
      added++;
      logger.info({ txid: pix.txid, endToEndId: pix.endToEndId, subject: fact.subject }, 'pix received, says the PSP');
    }
    for (const devolucao of pix.devolucoes ?? []) {
      const fact = factFromRefund(refundFromDevolucao(devolucao), pix, livemode);
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
