import { percentile } from './stats';

describe('percentile (nearest rank)', () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);

  it('is the smallest sample at or above the fraction of the samples', () => {
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile([1, 2, 3], 0.99)).toBe(3);
    expect(percentile([7], 0.5)).toBe(7);
  });

  it('is null without samples, and infinite when that share never arrived', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([10, 20, Infinity, Infinity], 0.99)).toBe(Infinity);
  });
});
