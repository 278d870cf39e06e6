import { waitDelay } from './attempts';

describe('waiting attempts', () => {
  it('back off from 250 ms, doubling, up to their cap, moved by at most ±10 %', () => {
    const middle = () => 0.5;
    expect([0, 1, 2, 3, 4, 5].map((n) => waitDelay(n, 3_000, middle))).toEqual([250, 500, 1000, 2000, 3000, 3000]);
    expect(waitDelay(1_000, 30_000, middle)).toBe(30_000);
    expect(waitDelay(0, 3_000, () => 0)).toBe(225);
    expect(waitDelay(0, 3_000, () => 0.999_999)).toBe(275);
  });
});
