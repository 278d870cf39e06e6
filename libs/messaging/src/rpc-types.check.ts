/**
 * Type-level test of typed RPC: it compiles only while serveRpc refuses a handler whose reply does
 * not match the definition's reply schema and callRpc refuses a request that does not match its
 * request schema. Each `@ts-expect-error` fails the compile if the line below it starts to compile
 * (the typing regressed). `make lint` type-checks it (tsconfig.test.json); nothing runs it.
 */
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { PaymentsRpc, type Payment, type RpcReply } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { callRpc, serveRpc } from './rpc';

declare const nc: NatsConnection;
declare const logger: Logger;
declare const payment: Payment;
const options = { queue: 'payments', logger };

/** The reply a caller gets is the reply schema's type. */
export async function callerGetsThePayment(): Promise<Payment> {
  const reply: RpcReply<typeof PaymentsRpc.get> = await callRpc(nc, PaymentsRpc.get, { storeId: 's', id: 'p' });
  return reply;
}

export function matchingHandlersCompile(): void {
  serveRpc(nc, PaymentsRpc.get, async (_req: { storeId: string; id: string }, _msg: Msg) => payment, options);
  serveRpc(nc, PaymentsRpc.qr, async () => ({ qrCopyPaste: null }), options);
}

export function mismatchedHandlersAreRefused(): void {
  // @ts-expect-error a reply without the Payment's fields
  serveRpc(nc, PaymentsRpc.get, async () => ({ id: payment.id }), options);
  // @ts-expect-error a field of the wrong type
  serveRpc(nc, PaymentsRpc.qr, async () => ({ qrCopyPaste: 42 }), options);
  // @ts-expect-error another definition's reply
  serveRpc(nc, PaymentsRpc.list, async () => payment, options);
  // @ts-expect-error a status the schema does not have
  serveRpc(nc, PaymentsRpc.get, async () => ({ ...payment, status: 'paid_twice' }), options);
}

export async function mismatchedRequestsAreRefused(): Promise<void> {
  // @ts-expect-error the request lacks the store
  await callRpc(nc, PaymentsRpc.get, { id: 'p' });
  // @ts-expect-error a request field of the wrong type
  await callRpc(nc, PaymentsRpc.qr, { id: 7 });
}
