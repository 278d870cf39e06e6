import type { WebhookAttemptMessage } from '@pix/contracts';
import { capturePublished } from '../../../libs/messaging/src/testing/published';
import { advance, firstAttempt, LIFECYCLE, type AttemptStep } from './attempt-messages';
import { HOOK_URL, paymentEvent } from './testing/events';

const event = paymentEvent('0b5a3c1e-0000-4000-8000-000000000001', 2, 'evt_00000000000000000000000000000001');

describe('the attempt lifecycle', () => {
  const delivery = { event, paymentId: event.paymentId, storeId: event.storeId, url: HOOK_URL };
  const base: WebhookAttemptMessage = { ...firstAttempt(delivery, 1), attempt: 3, waits: 2 };

  it('publishes now steps on the due subject under the attempt id', async () => {
    const { js, published } = capturePublished<WebhookAttemptMessage>();
    await advance(js, 'first', base);
    await advance(js, 'stall-check', base, { stallLook: 4 });
    await advance(js, 'wake', base);
    await advance(js, 'endpoint-back', base);
    expect(published.map((p) => [p.subject, p.id, p.body.attempt, p.body.reason, p.body.waits])).toEqual([
      ['webhooks.attempts.due', `${event.eventId}:1:3`, 3, 'attempt', 0],
      ['webhooks.attempts.due', `${event.eventId}:1:3:stall-check-4`, 3, 'attempt', 0],
      ['webhooks.attempts.due', `${event.eventId}:1:3:wake`, 3, 'woken', 2],
      // A retry brought forward: the same attempt as its schedule's, under an id of its own.
      ['webhooks.attempts.due', `${event.eventId}:1:3:endpoint-back`, 3, 'attempt', 2],
    ]);
  });

  it("schedules the other steps on the event's own subject, firing onto the due subject", async () => {
    const { js, published } = capturePublished<WebhookAttemptMessage>();
    const at = new Date('2026-11-25T10:05:00.000Z');
    const steps: AttemptStep[] = ['first-later', 'no-secrets', 'held', 'retry'];
    for (const step of steps) await advance(js, step, base, { at, missingSince: '2026-11-25T10:00:01.000Z' });
    expect(published.every((p) => p.subject === `webhooks.attempts.scheduled.${event.paymentId}.2`)).toBe(true);
    expect(published.every((p) => p.target === 'webhooks.attempts.due' && p.at === at && p.id === undefined)).toBe(
      true,
    );
    expect(published.map((p) => [p.body.reason, p.body.attempt, p.body.waits, p.body.missingSince])).toEqual([
      ['attempt', 3, 0, null],
      ['deferred', 3, 3, null],
      ['held', 3, 3, '2026-11-25T10:00:01.000Z'],
      ['attempt', 4, 0, null],
    ]);
  });

  it('marks a retry brought ahead for a later event of its payment, for that attempt only', async () => {
    const { js, published } = capturePublished<WebhookAttemptMessage>();
    const ahead = await advance(js, 'ahead', base);
    expect(published.map((p) => [p.subject, p.id, p.body.attempt, p.body.ahead])).toEqual([
      ['webhooks.attempts.due', `${event.eventId}:1:3:ahead`, 3, true],
    ]);
    // Handed back it stays ahead; failing again, its next retry is like any other.
    expect((await advance(js, 'hand-back', ahead)).ahead).toBe(true);
    const retry = await advance(js, 'retry', ahead, { at: new Date() });
    expect([retry.attempt, retry.ahead]).toEqual([4, undefined]);
  });

  it('publishes nothing for a redo, made in place under the next number, nor for a hand-back', async () => {
    const { js, published } = capturePublished<WebhookAttemptMessage>();
    const deferred: WebhookAttemptMessage = { ...base, reason: 'deferred' };
    const redo = await advance(js, 'redo', deferred);
    const handedBack = await advance(js, 'hand-back', deferred);
    expect(published).toEqual([]);
    expect([redo.attempt, redo.reason, redo.waits]).toEqual([4, 'attempt', 0]);
    expect(handedBack).toEqual(deferred);
  });

  it('has a rule for every step', () => {
    expect(Object.keys(LIFECYCLE).sort()).toEqual(
      [
        'ahead',
        'endpoint-back',
        'first',
        'first-later',
        'hand-back',
        'held',
        'no-secrets',
        'redo',
        'retry',
        'stall-check',
        'wake',
      ].sort(),
    );
  });
});
