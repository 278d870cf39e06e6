import { timingSafeEqual } from 'node:crypto';
import express, { type Router } from 'express';
import { z } from 'zod';
import { brlToCents, Subjects } from '@pix/contracts';
import { publishEvent, type JetStreamClient } from '@pix/messaging';
import type { Logger } from '@pix/observability';

/** API Pix's webhook body: POST {webhookUrl}/pix with the payments received. */
const PixCallbackSchema = z.object({
  pix: z.array(
    z.object({
      endToEndId: z.string().min(1).max(35),
      txid: z.string().min(1).max(35),
      valor: z.string().regex(/^\d{1,10}\.\d{2}$/),
      horario: z.string(),
    }),
  ),
});
export type PixCallback = z.infer<typeof PixCallbackSchema>;

export const CALLBACK_SECRET_HEADER = 'x-psp-callback-secret';

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The PSP's payment callbacks. Each received Pix becomes a pix.events.paid fact on JetStream with
 * the endToEndId as its message id, so a PSP that calls twice produces one event. The PSP gets its
 * 200 only once JetStream has stored the events; otherwise it retries, as PSPs do.
 */
export function callbackRouter(options: { js: JetStreamClient; secret: string; logger: Logger }): Router {
  const router = express.Router();
  router.post('/pix', express.json({ limit: '256kb' }), async (req, res) => {
    if (!sameSecret(req.get(CALLBACK_SECRET_HEADER), options.secret)) {
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
      await publishEvent(
        options.js,
        Subjects.pixPaid,
        { endToEndId: pix.endToEndId, txid: pix.txid, amountCents, paidAt: new Date(pix.horario).toISOString() },
        pix.endToEndId,
      );
      options.logger.info({ txid: pix.txid, endToEndId: pix.endToEndId }, 'pix received from the PSP');
    }
    res.status(200).json({ received: parsed.data.pix.length });
  });
  return router;
}
