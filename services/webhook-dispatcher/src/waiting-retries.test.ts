import type { WebhookAttemptMessage } from '@pix/contracts';
import { WaitingRetries } from './waiting-retries';

const retry = (eventId: string) => ({ eventId, attempt: 2 }) as WebhookAttemptMessage;
const ids = (messages: WebhookAttemptMessage[]) => messages.map((m) => m.eventId);

describe('the retries a replica keeps to bring forward', () => {
  const at = (ms: number) => new Date(ms);

  it("takes an endpoint's retries oldest first, a few at a time, and none of another endpoint's", () => {
    const waiting = new WaitingRetries();
    for (const id of ['a1', 'a2', 'a3']) waiting.add('https://a.example', retry(id), at(60_000));
    waiting.add('https://b.example', retry('b1'), at(60_000));
    expect(ids(waiting.take('https://a.example', 2, 0))).toEqual(['a1', 'a2']);
    expect(ids(waiting.take('https://a.example', 2, 0))).toEqual(['a3']);
    expect(waiting.take('https://a.example', 2, 0)).toEqual([]);
    expect(waiting.size).toBe(1);
  });

  it('lets go of a retry due soon without taking it, and of one forgotten', () => {
    const waiting = new WaitingRetries();
    waiting.add('https://a.example', retry('soon'), at(1_000));
    waiting.add('https://a.example', retry('made'), at(60_000));
    waiting.add('https://a.example', retry('later'), at(60_000));
    waiting.forget('made');
    expect(ids(waiting.take('https://a.example', 10, 2_000))).toEqual(['later']);
    expect(waiting.size).toBe(0);
  });

  it('keeps the latest retry of an event, and at most its bound, the oldest let go first', () => {
    const waiting = new WaitingRetries(2);
    waiting.add('https://a.example', retry('e1'), at(10_000));
    waiting.add('https://a.example', { ...retry('e1'), attempt: 3 }, at(20_000));
    expect(waiting.size).toBe(1);
    waiting.add('https://a.example', retry('e2'), at(10_000));
    waiting.add('https://b.example', retry('e3'), at(10_000));
    expect(waiting.size).toBe(2);
    expect(ids(waiting.take('https://a.example', 10, 0))).toEqual(['e2']);
    expect(waiting.take('https://b.example', 10, 0).map((m) => [m.eventId, m.attempt])).toEqual([['e3', 2]]);
  });
});
