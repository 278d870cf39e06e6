import { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import { ErrorMessages, statementDay, Subjects } from '@pix/contracts';
import { connectAs, type LocalSecrets } from '@pix/devstack';
import { FactSigner, jetstream, publishEvent, signingJetStream } from '@pix/messaging';
import { got } from '@pix/http';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { verify } from '../webhooks/helpers';

type Json = Record<string, unknown>;

/**
 * A dispute (a MED infraction) from the PSP simulator to the merchant and back, on a stack of the
 * test's own whose adapter reads the PSP's infractions every second (INFRACTIONS_INTERVAL): the
 * simulator's back office files one against a paid Pix, the payment shows it and its signed webhook
 * goes out, a refund is refused while it is open, the 6-hour reminder comes once, the defence sent
 * through the public API reaches the PSP once, and the PSP's decision closes it, once, whatever is
 * told again.
 */
describe('disputes (MED infractions) through the simulator and the public API', () => {
  let stack: PrivateStack;
  const receiver = new WebhookReceiver();
  let store: StoreCredentials;
  let webhookUrl: string;
  let backOfficeUrl: string;

  const call = <T = Json>(method: string, path: string, body?: unknown) =>
    api<T>(stack.gatewayUrl, method, `/public-api/v1${path}`, { token: store.token, body });
  const backOffice = <T = Json>(method: 'get' | 'post', path: string, body?: unknown) =>
    got(`${backOfficeUrl}${path}`, {
      method,
      ...(body !== undefined && { json: body }),
      throwHttpErrors: false,
      retry: { limit: 0 },
    }).then((res) => ({ status: res.statusCode, body: JSON.parse(res.body) as T }));

  beforeAll(async () => {
    stack = await startPrivateStack({ env: { INFRACTIONS_INTERVAL: '1s' } });
    backOfficeUrl = stack.psp?.backOfficeUrl ?? '';
    if (!backOfficeUrl) throw new Error('the stack runs no PSP simulator');
    webhookUrl = await receiver.start();
    store = await createStore(stack, 'Disputes store');
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  async function paidPayment(amount: number): Promise<{ id: string; endToEndId: string }> {
    const created = await call<{ id: string }>('POST', '/payments', { amount, webhookUrl });
    expect(created.status).toBe(200);
    const paid = await call<{ endToEndId: string }>('POST', `/sandbox/payments/${created.body.id}/pay`);
    expect(paid.status).toBe(200);
    await eventually(
      async () => (await call('GET', `/payments/${created.body.id}`)).body,
      (p) => p.status === 'approved',
    );
    return { id: created.body.id, endToEndId: paid.body.endToEndId };
  }

  const disputeOf = async (paymentId: string) =>
    (await call<{ dispute?: Json }>('GET', `/payments/${paymentId}`)).body.dispute;
  const hooksOf = (paymentId: string, event: string) =>
    receiver.events(paymentId).filter((hook) => hook.json.event === event);

  it('opens, reminds, takes a defence once, refuses refunds while open, and closes on the decision', async () => {
    const payment = await paidPayment(50);
    expect(await disputeOf(payment.id)).toBeUndefined();
    // Six hours and seconds ahead: the 48- and 24-hour marks are past (no reminder), the 6-hour one falls due in seconds.
    const prazo = new Date(Date.now() + 6 * 3_600_000 + 8_000).toISOString();
    const filed = await backOffice<{ idInfracao: string; status: string }>(
      'post',
      `/pix/${encodeURIComponent(payment.endToEndId)}/infracao`,
      { valor: '30.00', motivo: 'Não reconheço esta compra.', prazo },
    );
    expect(filed.status).toBe(201);
    expect(filed.body.status).toBe('ABERTA');

    const opened = await eventually(
      () => disputeOf(payment.id),
      (dispute) => dispute !== undefined,
    );
    expect(opened).toEqual({
      status: 'open',
      reason: 'Não reconheço esta compra.',
      kind: 'golpe',
      amountAtRisk: 30,
      openedAt: expect.any(String),
      deadlineAt: new Date(prazo).toISOString(),
      defense: null,
      decision: null,
      closedAt: null,
    });
    const [openedHook] = await eventually(
      async () => hooksOf(payment.id, 'payment.dispute_opened'),
      (hooks) => hooks.length === 1,
    );
    verify(openedHook!, store.webhookSecret);
    expect(openedHook!.json).toEqual({
      event: 'payment.dispute_opened',
      paymentId: payment.id,
      storeId: store.storeId,
      livemode: false,
      ...opened,
    });

    const refund = await call('POST', `/payments/${payment.id}/refunds`);
    expect(refund.status).toBe(409);
    expect(refund.body).toEqual({ statusCode: 409, message: ErrorMessages.refundDisputeOpen });
    // The day's statement counts what the PSP holds for the open dispute.
    const today = statementDay(new Date());
    const during = await call('GET', `/statements/${today}`);
    expect(during.body).toMatchObject({ date: today, atRisk: 30, counts: { atRisk: 1 } });

    const [reminder] = await eventually(
      async () => hooksOf(payment.id, 'payment.dispute_reminder'),
      (hooks) => hooks.length === 1,
      20_000,
    );
    verify(reminder!, store.webhookSecret);
    expect(reminder!.json).toMatchObject({ hoursLeft: 6, status: 'open' });

    const tooLong = await call('POST', `/payments/${payment.id}/dispute/defense`, { text: 'x'.repeat(1001) });
    expect(tooLong.body).toEqual({ statusCode: 400, message: ErrorMessages.disputeDefenseInvalid });
    const text = 'O cliente retirou o produto na loja; segue o recibo assinado.';
    const defended = await call<{ dispute: Json }>('POST', `/payments/${payment.id}/dispute/defense`, { text });
    expect(defended.status).toBe(200);
    expect(defended.body.dispute).toMatchObject({ status: 'open', defense: { text, sentAt: expect.any(String) } });
    // A retry answers the same, and sends nothing again.
    const retried = await call<{ dispute: Json }>('POST', `/payments/${payment.id}/dispute/defense`, { text });
    expect(retried.body.dispute).toEqual(defended.body.dispute);
    const other = await call('POST', `/payments/${payment.id}/dispute/defense`, { text: 'Outra.' });
    expect(other.body).toEqual({ statusCode: 409, message: ErrorMessages.disputeDefended });

    const atPsp = await eventually(
      async () => (await backOffice<{ defesa?: Json }>('get', `/infracoes/${filed.body.idInfracao}`)).body,
      (infracao) => infracao.defesa !== undefined,
    );
    expect(atPsp).toMatchObject({ status: 'EM_DEFESA', defesa: { analise: 'rejeitado', justificativa: text } });
    const journal = await backOffice<{ requests: { status: number | null }[] }>(
      'get',
      '/journal?operation=infracoes.defesa',
    );
    expect(journal.body.requests.map((line) => line.status)).toEqual([200]);

    const decided = await backOffice('post', `/infracoes/${filed.body.idInfracao}/decide`, { status: 'REJEITADA' });
    expect(decided.status).toBe(200);
    const closed = await eventually(
      () => disputeOf(payment.id),
      (dispute) => dispute?.status === 'closed',
    );
    expect(closed).toMatchObject({ decision: 'rejected', closedAt: expect.any(String), defense: { text } });
    const [closedHook] = await eventually(
      async () => hooksOf(payment.id, 'payment.dispute_closed'),
      (hooks) => hooks.length === 1,
    );
    verify(closedHook!, store.webhookSecret);
    expect(closedHook!.json).toMatchObject({ event: 'payment.dispute_closed', decision: 'rejected' });
    const after = await call('GET', `/statements/${today}`);
    expect(after.body).toMatchObject({ date: today, atRisk: 0, counts: { atRisk: 0 } });

    // Closed: the merchant may refund again, and cannot answer it any more.
    const late = await call('POST', `/payments/${payment.id}/dispute/defense`, { text });
    expect(late.body).toEqual({ statusCode: 409, message: ErrorMessages.disputeNotOpen });

    // The same facts told again, as a new message signed with the adapter's key: nothing twice.
    const secrets = JSON.parse(fs.readFileSync(stack.secretsFile, 'utf8')) as LocalSecrets;
    const key = createPrivateKey({
      key: Buffer.from(secrets.factKeys['pix-provider-adapter'].privateKey, 'base64'),
      format: 'der',
      type: 'pkcs8',
    });
    const nc = await connectAs(stack.natsUrl, 'pix-provider-adapter', stack.natsCredentials);
    try {
      const js = signingJetStream(jetstream(nc), new FactSigner(key));
      const fact = {
        txid: payment.id.replace(/-/g, ''),
        endToEndId: payment.endToEndId,
        pspDisputeId: filed.body.idInfracao,
        reason: 'Não reconheço esta compra.',
        kind: 'golpe',
        amountCents: 3000,
        deadlineAt: prazo,
        openedAt: String(opened?.openedAt),
        livemode: false,
      };
      await publishEvent(js, Subjects.pixDisputeOpened, fact, `redelivered-open-${filed.body.idInfracao}`);
      const closedFact = { ...fact, decision: 'rejected', decidedAt: new Date().toISOString() };
      await publishEvent(js, Subjects.pixDisputeClosed, closedFact, `redelivered-closed-${filed.body.idInfracao}`);
    } finally {
      await nc.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await disputeOf(payment.id)).toEqual(closed);
    expect(receiver.events(payment.id).map((hook) => hook.json.event)).toEqual([
      'payment.created',
      'payment.status_changed',
      'payment.dispute_opened',
      'payment.dispute_reminder',
      'payment.dispute_closed',
    ]);
    expect((await call('POST', `/payments/${payment.id}/refunds`, { amount: 10 })).status).toBe(200);
  });

  it("answers another store's payment 404, and a payment without a dispute 409", async () => {
    const payment = await paidPayment(20);
    const none = await call('POST', `/payments/${payment.id}/dispute/defense`, { text: 'Defesa.' });
    expect(none.body).toEqual({ statusCode: 409, message: ErrorMessages.disputeNotOpen });
    const other = await createStore(stack, 'Another store');
    const foreign = await api(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${payment.id}/dispute/defense`, {
      token: other.token,
      body: { text: 'Defesa.' },
    });
    expect(foreign.body).toEqual({ statusCode: 404, message: ErrorMessages.paymentNotFound });
    const empty = await call('POST', `/payments/${payment.id}/dispute/defense`, { text: '' });
    expect(empty.body).toEqual({ statusCode: 400, message: ErrorMessages.disputeDefenseInvalid });
  });

  it('an infraction whose deadline has passed is recorded open, and no defence is taken', async () => {
    const payment = await paidPayment(15);
    const filed = await backOffice('post', `/pix/${encodeURIComponent(payment.endToEndId)}/infracao`, {
      prazo: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(filed.status).toBe(201);
    const dispute = await eventually(
      () => disputeOf(payment.id),
      (found) => found !== undefined,
    );
    expect(dispute).toMatchObject({ status: 'open', amountAtRisk: 15 });
    const late = await call('POST', `/payments/${payment.id}/dispute/defense`, { text: 'Defesa.' });
    expect(late.body).toEqual({ statusCode: 409, message: ErrorMessages.disputeDeadlinePassed });
  });
});
