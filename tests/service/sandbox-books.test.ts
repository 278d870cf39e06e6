import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import { DATABASE_CLIENT_OPTIONS } from '@pix/runtime';
import { SandboxBooks } from '../../services/psp-simulator/src/books';
import { sharedStack } from '../support/stack';

/**
 * The sandbox PSP's charges (PUT /cob), against the real engine: idempotent by txid, one insert for
 * a new charge, and the charge already there (not a second one) for a repeated request.
 */
describe("the sandbox PSP's charges", () => {
  const sent: string[] = [];
  let books: SandboxBooks;
  const charge = (amountCents: number) => ({
    cob: { txid: 'x', status: 'ATIVA', valor: { original: (amountCents / 100).toFixed(2) } } as never,
    amountCents,
    expiresAt: new Date(Date.now() + 60_000),
  });

  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/sandbox_books'), DATABASE_CLIENT_OPTIONS);
    mongoose.connection.getClient().on('commandStarted', (event: CommandStartedEvent) => {
      const collection = event.command[event.commandName] as unknown;
      if (collection === 'sandbox_psp_cobs') sent.push(event.commandName);
      if (collection === 'sandbox_psp_refunds') sent.push(`${event.commandName} refunds`);
    });
    books = await SandboxBooks.open();
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  it('takes a new charge in one insert, and answers a repeat with the charge it holds', async () => {
    const txid = `books${Date.now()}`;
    sent.length = 0;
    const first = await books.putCharge(txid, charge(1000));
    expect(first.created).toBe(true);
    expect(sent).toEqual(['insert']);
    expect(await books.findCharge(txid)).toEqual({
      _id: txid,
      ...charge(1000),
      expiresAt: first.charge.expiresAt,
      pix: null,
      analysis: null,
      // No pixIds or latePix before a Pix: the partial indexes on them hold no entry for it.
      refundedPixIds: [],
      failNextRefund: null,
    });

    sent.length = 0;
    const repeat = await books.putCharge(txid, charge(2000));
    expect(sent).toEqual(['insert', 'find']);
    expect(repeat.created).toBe(false);
    expect(repeat.charge.amountCents).toBe(1000);
    expect(repeat.charge.cob).toEqual(first.charge.cob);
  });

  it('gives racing requests for one txid one charge, made by one of them', async () => {
    const txid = `race${Date.now()}`;
    const results = await Promise.all([1, 2, 3, 4].map((n) => books.putCharge(txid, charge(n * 100))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const stored = await books.findCharge(txid);
    for (const r of results) expect(r.charge.amountCents).toBe(stored?.amountCents);
  });

  /** A charge paid with a Pix, as the pay records it. */
  async function paidCharge(txid: string) {
    await books.putCharge(txid, charge(1000));
    const pix = { endToEndId: `E${txid}`, amountCents: 1000, paidAt: new Date(), held: false, notified: false };
    const paid = await books.recordPix(txid, pix, new Date());
    if (!paid?.pix) throw new Error('the Pix was not recorded');
    return { charge: paid, pix: paid.pix };
  }

  const refundOf = (txid: string, endToEndId: string, amountCents: number) => ({
    endToEndId,
    devolucao: { id: 'd1', status: 'EM_PROCESSAMENTO' } as never,
    amountCents,
    pix: { endToEndId, txid, valor: '10.00', horario: new Date().toISOString() },
    planned: { status: 'DEVOLVIDO' as const, motivo: null },
    notified: false,
  });

  it("reads a Pix's refunds only once one was asked of it, marked on its charge before the refund", async () => {
    const txid = `refunded${Date.now()}`;
    const { pix } = await paidCharge(txid);
    sent.length = 0;
    expect(await books.refundsOfPix((await books.pixOf(pix.endToEndId))!.charge, pix.endToEndId)).toEqual([]);
    expect(sent).toEqual(['find']); // the charge (pixOf); no read of the refunds

    sent.length = 0;
    await books.putRefund(`${pix.endToEndId}/d1`, refundOf(txid, pix.endToEndId, 400));
    expect(sent).toEqual(['update', 'findAndModify refunds']);
    const marked = (await books.pixOf(pix.endToEndId))!.charge;
    expect(marked.refundedPixIds).toEqual([pix.endToEndId]);
    sent.length = 0;
    expect((await books.refundsOfPix(marked, pix.endToEndId)).map((r) => r.amountCents)).toEqual([400]);
    expect(sent).toEqual(['find refunds']);
  });

  it('reads the refunds of every Pix of a charge stored before the marks were kept, and adds none to it', async () => {
    const txid = `unmarked${Date.now()}`;
    const { pix } = await paidCharge(txid);
    await mongoose.connection
      .collection('sandbox_psp_cobs')
      .updateOne({ _id: txid as never }, { $unset: { refundedPixIds: '' } });
    await books.putRefund(`${pix.endToEndId}/d1`, refundOf(txid, pix.endToEndId, 300));
    const { charge: old } = (await books.pixOf(pix.endToEndId))!;
    expect(old.refundedPixIds).toBeUndefined();
    sent.length = 0;
    expect((await books.refundsOfPix(old, pix.endToEndId)).map((r) => r.amountCents)).toEqual([300]);
    expect(sent).toEqual(['find refunds']);
  });
});
