import { FinishedEvents } from './finished-events';

describe("a replica's finished events", () => {
  it('clear a later event only through a run without gaps from the first', () => {
    const finished = new FinishedEvents();
    expect(finished.allBefore('pay_a', 1)).toBe(true);
    expect(finished.allBefore('pay_a', 2)).toBe(false);
    finished.finished('pay_a', 2); // event 1 was finished elsewhere, or not yet
    expect(finished.allBefore('pay_a', 3)).toBe(false);
    finished.finished('pay_a', 1);
    expect(finished.allBefore('pay_a', 2)).toBe(true);
    expect(finished.allBefore('pay_a', 3)).toBe(false);
    finished.finished('pay_a', 2);
    finished.finished('pay_a', 1); // a replay of event 1 finished: nothing moves back
    expect(finished.allBefore('pay_a', 3)).toBe(true);
    expect(finished.allBefore('pay_b', 2)).toBe(false);
  });

  it('forget the payment used longest ago once more are remembered than they hold', () => {
    const finished = new FinishedEvents(2);
    finished.finished('pay_a', 1);
    finished.finished('pay_b', 1);
    finished.finished('pay_a', 2); // pay_a used last
    finished.finished('pay_c', 1);
    expect(['pay_a', 'pay_b', 'pay_c'].map((id) => finished.allBefore(id, 2))).toEqual([true, false, true]);
  });
});
