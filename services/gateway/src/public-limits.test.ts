import { createRegistry } from '@pix/observability';
import { PublicLimiter } from './public-limits';

describe('PublicLimiter', () => {
  let now = 5_000_000;
  const limiter = (maxAddresses?: number) =>
    new PublicLimiter({ requests: 3, windowMs: 60_000, maxAddresses }, createRegistry('test'), () => now);

  it('lets an address make its requests, then makes it wait until its window ends, and no other address', () => {
    const limit = limiter();
    for (let i = 0; i < 3; i++) expect(limit.take('a')).toBeNull();
    now += 20_000;
    expect(limit.take('a')).toBe(40);
    expect(limit.take('b')).toBeNull();
    now += 40_000;
    expect(limit.take('a')).toBeNull();
  });

  it('keeps at most maxAddresses windows, forgetting the least recently seen', () => {
    const limit = limiter(2);
    for (const address of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) limit.take(address);
    expect(limit.take('c')).not.toBeNull();
    // `a` was forgotten: a new window.
    expect(limit.take('a')).toBeNull();
  });
});
