import { Journal, type JournalLine } from './journal';

const line = (operation: JournalLine['operation'], txid: string): JournalLine => ({
  operation,
  params: { txid },
  query: {},
  status: 200,
  at: new Date(0).toISOString(),
});

describe('the PSP simulator journal', () => {
  it('lists the requests oldest first, all or of one operation', () => {
    const journal = new Journal();
    journal.record(line('cob.put', 'a'));
    journal.record(line('cob.get', 'a'));
    journal.record(line('cob.put', 'b'));
    expect(journal.list().map((l) => l.operation)).toEqual(['cob.put', 'cob.get', 'cob.put']);
    expect(journal.list('cob.put').map((l) => l.params.txid)).toEqual(['a', 'b']);
  });

  it('keeps the newest lines only, up to its capacity', () => {
    const journal = new Journal(2);
    for (const txid of ['a', 'b', 'c']) journal.record(line('cob.put', txid));
    expect(journal.list().map((l) => l.params.txid)).toEqual(['b', 'c']);
  });
});
