import { retryDelay } from './jetstream';

describe('the wait before a scheduled retry', () => {
  it('starts at the first wait and doubles each try', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelay(attempt, 1000, 60_000))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('never passes its ceiling, however many tries', () => {
    expect(retryDelay(7, 1000, 60_000)).toBe(60_000);
    expect(retryDelay(10_000, 5000, 600_000)).toBe(600_000);
  });
});
