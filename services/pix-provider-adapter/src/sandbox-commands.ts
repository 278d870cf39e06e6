import { got } from '@pix/http';
import { centsToBrl, ErrorMessages } from '@pix/contracts';
import { RpcFailure } from '@pix/messaging';
import { CALLBACK_SECRET_HEADER, type PixCallback } from './callbacks';
import type { SandboxProvider } from './providers/sandbox';

/**
 * `sandbox pay`: the simulated customer pays, and the sandbox PSP notifies the adapter through the
 * very callback endpoint a real PSP calls, so the rest of the path is the production one.
 */
export async function sandboxPay(
  sandbox: SandboxProvider,
  options: { callbackUrl: string; secret: string },
  paymentId: string,
  amountCents?: number,
): Promise<{ paymentId: string; txid: string; endToEndId: string; amount: number }> {
  const pix = await sandbox.pay(paymentId, amountCents);
  if (!pix) throw new RpcFailure(404, ErrorMessages.paymentNotFound);
  const body: PixCallback = {
    pix: [
      {
        endToEndId: pix.endToEndId,
        txid: pix.txid,
        valor: centsToBrl(pix.amountCents).toFixed(2),
        horario: pix.paidAt.toISOString(),
      },
    ],
  };
  await got.post(options.callbackUrl, {
    json: body,
    headers: { [CALLBACK_SECRET_HEADER]: options.secret },
    timeout: { request: 5000 },
    retry: { limit: 3, methods: ['POST'] },
  });
  return { paymentId, txid: pix.txid, endToEndId: pix.endToEndId, amount: centsToBrl(pix.amountCents) };
}
