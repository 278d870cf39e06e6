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
      if (event.command[event.commandName] === 'sandbox_psp_cobs') sent.push(event.commandName);
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
});
