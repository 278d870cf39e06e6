import { EventsInHand } from './events-in-hand';

describe('EventsInHand', () => {
  const settled = async (p: Promise<void>): Promise<boolean> => {
    let done = false;
    void p.then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  };

  it('lets a later event of a payment wait for the earlier ones in hand, not for later or other ones', async () => {
    const inHand = new EventsInHand();
    const first = inHand.begin('p1', 1);
    const second = inHand.begin('p1', 2);
    inHand.begin('p1', 4);
    inHand.begin('p2', 1);

    const third = inHand.earlierDone('p1', 3, 60_000);
    expect(await settled(third)).toBe(false);
    first();
    expect(await settled(third)).toBe(false);
    second();
    expect(await settled(third)).toBe(true);
    expect(await settled(inHand.earlierDone('p2', 1, 60_000))).toBe(true);
  });

  it('waits no longer than it is told', async () => {
    jest.useFakeTimers();
    try {
      const inHand = new EventsInHand();
      inHand.begin('p1', 1);
      let done = false;
      const waited = inHand.earlierDone('p1', 2, 500).then(() => (done = true));
      await jest.advanceTimersByTimeAsync(499);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await waited;
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('waits for a redelivered copy still in hand after the first copy is done with', async () => {
    const inHand = new EventsInHand();
    const copy1 = inHand.begin('p1', 1);
    const copy2 = inHand.begin('p1', 1);
    copy1();
    expect(await settled(inHand.earlierDone('p1', 2, 60_000))).toBe(false);
    copy2();
    expect(await settled(inHand.earlierDone('p1', 2, 60_000))).toBe(true);
  });
});
