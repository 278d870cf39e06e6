import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import mongoose from 'mongoose';
import { got } from '@pix/http';
import { connectAs, databaseOf, withDatabase } from '@pix/devstack';
import {
  nextStatementCheck,
  previousDay,
  statementDay,
  Streams,
  Subjects,
  type StatementCheckReply,
} from '@pix/contracts';
import { SandboxBooks } from '../../services/psp-simulator/src/books';
import { admin } from '../support/admin';
import { api, eventually } from '../support/api';
import { commandCounts, commandsBetween } from '../support/db-commands';
import { paymentsClient } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { jetStreamAdmin } from '../support/streams';
import { metric } from '../webhooks/helpers';

/**
 * The nightly statement check, run now by the admin command, against the stack's PSP simulator (its
 * own process and books: the test connection; the stack has no live one, which the adapter answers
 * `not_configured`, so only `test` is checked). A stack of its own, so the day's listing holds only
 * this test's Pix.
 */
describe("the statement check against the PSP's listing", () => {
  let stack: PrivateStack;
  const books = new SandboxBooks();

  beforeAll(async () => {
    stack = await startPrivateStack();
    await mongoose.connect(withDatabase(stack.mongoAdminUrl!, databaseOf(stack.psp!.mongoUrl)));
  }, 180_000);
  afterAll(async () => {
    await stack.stop();
    await mongoose.disconnect();
  });

  const check = (day: string) => admin<StatementCheckReply>(stack, 'statement', 'check', day);

  /** A charge at the PSP that no payment knows, paid by a Pix the PSP lists: the payer paid someone's QR. */
  async function pixNoPaymentKnows(): Promise<string> {
    const txid = `unknown${Date.now()}`.padEnd(26, '0');
    const now = new Date();
    const pix = { endToEndId: `E${txid}`.slice(0, 32), amountCents: 500, paidAt: now, held: false, notified: true };
    await books.putCharge(txid, {
      cob: { txid, status: 'ATIVA' } as never,
      amountCents: 500,
      expiresAt: new Date(now.getTime() + 3600_000),
    });
    await books.recordPix(txid, { ...pix }, now);
    await books.ledgerPix(txid, pix);
    return pix.endToEndId;
  }

  it('finds no difference in a day of a paid Pix and its refund, then reports a Pix no payment knows', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(30);
    const txid = payment.id.replace(/-/g, '');
    await got.post(`${stack.psp!.backOfficeUrl}/cob/${txid}/pay`, { json: {}, retry: { limit: 0 } });
    await client.waitForStatus(payment.id, 'approved');
    const refund = await api<{ id: string }>(
      stack.gatewayUrl,
      'POST',
      `/public-api/v1/payments/${payment.id}/refunds`,
      {
        token: client.store.token,
        body: { amount: 12.5 },
      },
    );
    expect(refund.status).toBe(200);
    await eventually(
      async () =>
        (
          await api<{ status: string }>(
            stack.gatewayUrl,
            'GET',
            `/public-api/v1/payments/${payment.id}/refunds/${refund.body.id}`,
            { token: client.store.token },
          )
        ).body.status,
      (status) => status === 'succeeded',
      20_000,
    );
    const today = statementDay(new Date());

    // The refund's movement is recorded by the publish path just after its settlement is visible.
    const clean = await eventually(
      () => check(today),
      (reply) => reply.results[0]?.differenceCount === 0,
      20_000,
    );
    expect(clean.results).toEqual([
      expect.objectContaining({ day: today, connection: 'test', livemode: false, pixAtPsp: 1, movements: 2 }),
    ]);
    expect(clean.results[0]!.differences).toEqual([]);

    // Its cost in the database: the day's movements, those of its Pix, and the result's one write.
    const before = await commandCounts(stack);
    await check(today);
    const spent = commandsBetween(before, await commandCounts(stack));
    const ofCheck = [...spent].filter(
      ([key]) => key.includes('balance_transactions') || key.includes('update statement_checks'),
    );
    expect(Object.fromEntries(ofCheck)).toEqual({
      'payments find balance_transactions': 2,
      'payments update statement_checks': 1,
    });

    const unknown = await pixNoPaymentKnows();
    const found = await check(today);
    expect(found.results).toEqual([expect.objectContaining({ pixAtPsp: 2, movements: 2, differenceCount: 1 })]);
    expect(found.results[0]!.differences).toEqual([
      {
        kind: 'pix_unknown',
        endToEndId: unknown,
        pspCents: 500,
        platformCents: null,
        pspStatus: null,
        paymentId: null,
      },
    ]);
    expect((await admin<StatementCheckReply>(stack, 'statement', 'results', '--limit', '1')).results).toEqual(
      found.results,
    );
    // Every replica tells it (from the stored check), whichever one ran it.
    const differences = () =>
      metric(stack.opsUrls.payments!, 'statement_check_differences', 'connection="test",livemode="false"');
    expect(await eventually(differences, (n) => n === 1, 30_000)).toBe(1);
    const checkedAt = await metric(stack.opsUrls.payments!, 'statement_check_last_success_timestamp_seconds');
    expect(checkedAt).toBe(Date.parse(found.results[0]!.checkedAt) / 1000);
  }, 120_000);

  it('waits as one scheduled message for 03:00 São Paulo; fallen due, it checks its day and keeps the next', async () => {
    /** The schedule waiting on its subject: its day and when it fires. */
    async function waiting() {
      const nc = await jetStreamAdmin(stack);
      try {
        const jsm = await jetstreamManager(nc);
        const msg = await jsm.streams.getMessage(Streams.paymentSchedules.name, {
          last_by_subj: Subjects.statementCheckSchedule,
        });
        return { body: msg!.json<{ day: string }>(), at: msg!.header.get('Nats-Schedule') };
      } finally {
        await nc.close();
      }
    }
    const next = nextStatementCheck(new Date());
    expect(await waiting()).toEqual({ body: { day: next.day }, at: `@at ${next.at.toISOString()}` });

    // What JetStream publishes when it falls due, for a day before this test's: published as payments would.
    const day = previousDay(statementDay(new Date()));
    const nc = await connectAs(stack.natsUrl, 'payments', stack.natsCredentials);
    try {
      await jetstream(nc).publish(Subjects.statementCheckDue, JSON.stringify({ day }));
    } finally {
      await nc.close();
    }
    const stored = await eventually(
      () => admin<StatementCheckReply>(stack, 'statement', 'results', '--limit', '10'),
      (reply) => reply.results.some((r) => r.day === day),
      20_000,
    );
    expect(stored.results.filter((r) => r.day === day)).toEqual([
      expect.objectContaining({ connection: 'test', pixAtPsp: 0, movements: 0, differenceCount: 0, differences: [] }),
    ]);
    // The next night's is still the one waiting.
    expect(await waiting()).toEqual({ body: { day: next.day }, at: `@at ${next.at.toISOString()}` });
  }, 120_000);

  it('refuses a day after today, and one that is no day', async () => {
    await expect(admin(stack, 'statement', 'check', '2026-02-30')).rejects.toThrow(/must be a day/);
    await expect(admin(stack, 'statement', 'check', '2999-01-01')).rejects.toThrow(/up to today/);
  });
});
