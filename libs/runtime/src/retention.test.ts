import { branchFor, dayOf, daysToPurge, expiryFields, expiryIndex } from './retention';

describe('retention branch', () => {
  it('keeps a TTL index where the server accepts one', () => {
    expect(branchFor(null)).toBe('ttl-index');
    expect(expiryIndex('ttl-index')).toEqual({ fields: { expiresAt: 1 }, options: { expireAfterSeconds: 0 } });
  });

  it("purges by expiry day where the server refuses TTL indexes (FerretDB 1.24's answer)", () => {
    const ferretdb = Object.assign(new Error('Index option expireAfterSeconds is not implemented yet'), {
      code: 238,
      codeName: 'NotImplemented',
    });
    expect(branchFor(ferretdb)).toBe('expiry-buckets');
    expect(branchFor({ code: 238, message: 'not implemented' })).toBe('expiry-buckets');
    expect(expiryIndex('expiry-buckets')).toEqual({ fields: { expiresOn: 1 }, options: {} });
  });

  it('does not take an unreachable database for a refusal', () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { name: 'MongoNetworkError' });
    expect(() => branchFor(down)).toThrow(down);
  });
});

describe('expiry buckets', () => {
  it('files a document under its UTC expiry day, and nothing while it must be kept', () => {
    expect(dayOf(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
    expect(expiryFields(new Date('2026-03-02T00:00:00Z'))).toEqual({
      expiresAt: new Date('2026-03-02T00:00:00Z'),
      expiresOn: '2026-03-02',
    });
    expect(expiryFields(null)).toEqual({ expiresAt: null, expiresOn: null });
  });

  it('purges every passed day once, never today', () => {
    const now = new Date('2026-03-05T10:00:00Z');
    expect(daysToPurge(null, now, 3)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04']);
    expect(daysToPurge('2026-03-04', now)).toEqual([]);
    expect(daysToPurge('2026-03-04', new Date('2026-03-06T00:00:00Z'))).toEqual(['2026-03-05']);
    // Across a month end, after a day without a purge.
    expect(daysToPurge('2026-02-27', now)).toEqual([
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
    ]);
  });
});
