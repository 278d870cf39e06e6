import express, { type Router } from 'express';
import QRCode from 'qrcode';
import type { NatsConnection } from '@nats-io/transport-node';
import { ErrorMessages, isPaymentId, PaymentsRpc } from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import { methodNotAllowed, sendError } from './http-errors';
import type { PublicLimiter } from './public-limits';

/**
 * The QR code image behind a payment's qrCodeUrl. It is public (the customer's phone or the
 * merchant's checkout page fetches it without a token); the payment id is an unguessable UUID and
 * the image shows only what the merchant hands the customer anyway. Each image costs a read of
 * payments: it counts against the client address's limit on the public routes (public-limits.ts).
 */
export function qrRouter(nc: NatsConnection, rpcTimeoutMs: number, limiter: PublicLimiter): Router {
  const router = express.Router();
  router.get('/:file', limiter.guard('qr_image'));
  router.get('/:file', async (req, res) => {
    const id = req.params.file.replace(/\.png$/, '');
    if (!req.params.file.endsWith('.png') || !isPaymentId(id)) {
      return sendError(res, 404, ErrorMessages.paymentNotFound);
    }
    const { qrCopyPaste } = await callRpc(nc, PaymentsRpc.qr, { id }, rpcTimeoutMs);
    if (!qrCopyPaste) return sendError(res, 404, ErrorMessages.paymentNotFound);
    const png = await QRCode.toBuffer(qrCopyPaste, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 });
    res.status(200).set({ 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=3600' }).send(png);
  });
  router.all('/:file', methodNotAllowed('GET'));
  return router;
}
