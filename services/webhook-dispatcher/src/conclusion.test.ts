import { decide, retryAt } from './conclusion';

describe('what follows an attempt', () => {
  const at = new Date('2026-11-26T12:00:00.000Z');

  it('is delivered after a success, whatever the schedule says', () => {
    expect(decide('success', at)).toEqual({ next: 'delivered' });
    expect(decide('success', null)).toEqual({ next: 'delivered' });
  });

  it('is dead at once after a refused target, with attempts left or not', () => {
    expect(decide('refused', at)).toEqual({ next: 'dead', reason: 'refused' });
    expect(decide('refused', null)).toEqual({ next: 'dead', reason: 'refused' });
  });

  it('is a retry after a failure while the schedule has one, dead (exhausted) after the last', () => {
    expect(decide('failure', at)).toEqual({ next: 'retry', at });
    expect(decide('failure', null)).toEqual({ next: 'dead', reason: 'exhausted' });
  });

  it("times the retry by the schedule's delay for the next attempt, with its jitter", () => {
    const schedule = [0, 5_000, 300_000];
    const now = at.getTime();
    expect(retryAt(schedule, 1, now, () => 0.5)).toEqual(new Date(now + 5_000));
    expect(retryAt(schedule, 2, now, () => 0)).toEqual(new Date(now + 270_000));
    expect(retryAt(schedule, 3, now)).toBeNull();
  });
});
