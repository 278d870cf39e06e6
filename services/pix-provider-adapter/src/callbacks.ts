import { timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import express, { type Request, type Router } from 'express';
import { brlToCents, Subjects } from '@pix/contracts';
import { publishEvent, type JetStreamClient } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { PixCallbackSchema, type AnalysisState, type PixCallback } from './api-pix/wire';

export const CALLBACK_SECRET_HEADER = 'x-psp-callback-secret';

/**
 * How the PSP proves it is the PSP: a client certificate signed by the PSP's CA (apipix, the TLS
 * server already refused anyone else), or the sandbox's shared secret in a header.
 */
export type CallbackAuth = { kind: 'mtls' } | { kind: 'secret'; secret: string };

function authenticated(req: Request, auth: CallbackAuth): boolean {
  if (auth.kind === 'mtls') return (req.socket as Partial<TLSSocket>).authorized === true;
  const given = req.get(CALLBACK_SECRET_HEADER);
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(auth.secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

type CallbackPix = PixCallback['pix'][number];

/** Which fact a callback entry is, and its JetStream message id (one fact per Pix and kind). */
function factOf(pix: CallbackPix): { subject: string; msgId: string } {
  const byAnalysis: Record<AnalysisState, string> = {
    EM_ANALISE: Subjects.pixReview,
    LIBERADO: Subjects.pixCleared,
    REJEITADO: Subjects.pixRejected,
  };
  if (!pix.analise) return { subject: Subjects.pixPaid, msgId: pix.endToEndId };
  return { subject: byAnalysis[pix.analise], msgId: `${pix.endToEndId}:${pix.analise}` };
}

function payloadOf(pix: CallbackPix, amountCents: number): unknown {
  const at = new Date(pix.horario).toISOString();
  if (pix.analise === 'LIBERADO' || pix.analise === 'REJEITADO') {
    return { endToEndId: pix.endToEndId, txid: pix.txid, decidedAt: new Date().toISOString() };
  }
  return { endToEndId: pix.endToEndId, txid: pix.txid, amountCents, paidAt: at };
}

/**
 * The PSP's callbacks (POST {webhook}/pix). Each received Pix becomes a fact on the PIX stream with
 * the endToEndId in its message id, so a PSP that calls twice produces one event. The PSP gets its
 * 200 only once JetStream has stored the events; otherwise it retries, as PSPs do.
 */
export function callbackRouter(options: { js: JetStreamClient; auth: CallbackAuth; logger: Logger }): Router {
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
    for (const pix of parsed.data.pix) {
      const amountCents = brlToCents(Number(pix.valor));
      if (amountCents === null) continue;
      const { subject, msgId } = factOf(pix);
      await publishEvent(options.js, subject, payloadOf(pix, amountCents), msgId);
      options.logger.info({ txid: pix.txid, endToEndId: pix.endToEndId, subject }, 'pix callback from the PSP');
    }
    res.status(200).json({ received: parsed.data.pix.length });
  });
  return router;
}
