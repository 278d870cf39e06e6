import { createLogger } from '@pix/observability';
import { PublishRetry } from './publish-retry';

/** A retry over a publish that fails while `away`, recording when each outbox was tried and what went. */
function retryOver() {
  const state = { away: true, tries: [] as number[], sent: [] as string[] };
  const start = Date.now();
  const retry: PublishRetry<string> = new PublishRetry(
    async (doc) => {
      state.tries.push(Date.now() - start);
      if (state.away) {
        retry.later(doc, new Error('JetStream unreachable'));
        return false;
      }
      state.sent.push(doc);
      return true;
    },
    createLogger('test', 'silent'),
  );
  return { retry, state };
}

describe('publishing again while JetStream is away', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('tries after 250 ms, the wait doubling to 2 s', async () => {
    const { retry, state } = retryOver();
    retry.later('a', new Error('away'));
    await jest.advanceTimersByTimeAsync(6_000);
    expect(state.tries).toEqual([250, 750, 1_750, 3_750, 5_750]);
  });

  it('sends what waits oldest first once one goes, and keeps that order through failures', async () => {
    const { retry, state } = retryOver();
    for (const doc of ['a', 'b', 'c']) retry.later(doc, new Error('away'));
    await jest.advanceTimersByTimeAsync(800);
    state.away = false;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(state.sent).toEqual(['a', 'b', 'c']);
    expect(retry.size).toBe(0);
  });

  it('sends what waits at once when another publish went through, not at its next try', async () => {
    const { retry, state } = retryOver();
    retry.later('a', new Error('away'));
    await jest.advanceTimersByTimeAsync(1_900);
    state.away = false;
    retry.back();
    await jest.advanceTimersByTimeAsync(0);
    expect(state.sent).toEqual(['a']);
    // Nothing left to try: no more tries at 3.75 s.
    await jest.advanceTimersByTimeAsync(5_000);
    expect(state.tries).toEqual([250, 750, 1_750, 1_900]);
  });

  it('flush (shutdown) tries what waits now, not at its next try', async () => {
    const { retry, state } = retryOver();
    retry.later('a', new Error('away'));
    state.away = false;
    await retry.flush();
    expect(state.sent).toEqual(['a']);
  });
});
