import { ToldFacts } from './told-facts';

describe('the facts a replica told lately', () => {
  it('knows an id for as long as it keeps it, and forgets it after', () => {
    const told = new ToldFacts(1000);
    told.add('E1', 0);
    expect(told.has('E1', 999)).toBe(true);
    expect(told.has('E1', 1000)).toBe(false);
    expect(told.has('E2', 0)).toBe(false);
  });

  it('drops the ids older than it keeps, in the order they came, when it adds one', () => {
    const told = new ToldFacts(1000);
    told.add('E1', 0);
    told.add('E2', 500);
    told.add('E1', 600); // told again: kept from now
    told.add('E3', 1550);
    expect([told.has('E1', 1550), told.has('E2', 1550), told.has('E3', 1550)]).toEqual([true, false, true]);
    expect((told as unknown as { toldAt: Map<string, number> }).toldAt.size).toBe(2);
  });
});
