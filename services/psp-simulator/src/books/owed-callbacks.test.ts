import { createLogger } from '@pix/observability';
import { OwedCallbacks } from './owed-callbacks';

describe('owed callbacks', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('keeps one redelivery per callback however often the payer retries, and stops once it goes through', async () => {
    const callbacks = new OwedCallbacks(createLogger('test', 'silent'));
    let receiverUp = false;
    const sent: string[] = [];
    const complete = async () => {
      sent.push('try');
      if (!receiverUp) throw new Error('receiver away');
    };
    // The pay and three retries of it while the receiver is away: each tries now, and fails.
    for (let i = 0; i < 4; i++) await expect(callbacks.now('pix:t1:E1', complete)).rejects.toThrow('receiver away');
    expect(sent).toHaveLength(4);

    // One schedule: the first redelivery (1 s) is one more try, not four.
    await jest.advanceTimersByTimeAsync(1000);
    expect(sent).toHaveLength(5);
    receiverUp = true;
    await jest.advanceTimersByTimeAsync(2000);
    expect(sent).toHaveLength(6);
    await jest.advanceTimersByTimeAsync(120_000);
    expect(sent).toHaveLength(6);
    callbacks.stop();
  });

  it('schedules each callback under its own key', async () => {
    const callbacks = new OwedCallbacks(createLogger('test', 'silent'));
    const sent: string[] = [];
    callbacks.after('refund:a', 200, async () => void sent.push('a'));
    callbacks.after('refund:a', 200, async () => void sent.push('a again'));
    callbacks.after('refund:b', 200, async () => void sent.push('b'));
    await jest.advanceTimersByTimeAsync(200);
    expect(sent.sort()).toEqual(['a', 'b']);
    callbacks.stop();
  });
});
