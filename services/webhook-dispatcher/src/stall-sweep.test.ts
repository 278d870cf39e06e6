import { recheckDelay } from './stall-sweep';

describe('recheckDelay', () => {
  it('doubles with each check that found the delivery not moved on, up to six hours', () => {
    const twoMinutes = 2 * 60_000;
    expect([0, 1, 2].map((checks) => recheckDelay(twoMinutes, checks))).toEqual([240_000, 480_000, 960_000]);
    expect(recheckDelay(twoMinutes, 50)).toBe(6 * 60 * 60 * 1000);
  });
});
