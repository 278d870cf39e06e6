import { randomUUID } from 'node:crypto';
import { Subjects, type PaymentEvent, type WebhookAttemptMessage, type WebhookDeadLetter } from '@pix/contracts';
import type { JsMsg } from '@pix/messaging';
import { createLogger, Registry } from '@pix/observability';
import { capturePublished } from '../../../libs/messaging/src/testing/published';
import { firstAttempt } from './attempt-messages';
import { AttemptRunner, waitDelay } from './attempts';
import type { AttemptResult } from './deliver';
import { EndpointLimiter, type EndpointLimits } from './endpoint-limiter';
import { createMetrics } from './metrics';
import { CONTRACT_SETTINGS } from './testing/delivery-log-contract';
import { HOOK_URL, paymentEvent } from './testing/events';
import { InMemoryDeliveryLog } from './testing/in-memory-delivery-log';

const OK: AttemptResult = { outcome: 'success', statusCode: 200, latencyMs: 5, error: null };
const DOWN: AttemptResult = { outcome: 'failure', statusCode: 503, latencyMs: 5, error: 'HTTP 503' };
const REFUSED: AttemptResult = { outcome: 'refused', statusCode: null, latencyMs: 1, error: 'private address' };

type Body = WebhookAttemptMessage | WebhookDeadLetter;

/**
 * The attempt runner over the in-memory delivery log, a JetStream client that records what is
 * published, and a sender that answers as the test says (at once with a success, unless told).
 */
function harness(options: { schedule?: number[]; limits?: EndpointLimits; log?: InMemoryDeliveryLog } = {}) {
  const log = options.log ?? new InMemoryDeliveryLog(CONTRACT_SETTINGS);
  const { js, published } = capturePublished<Body>();
  const metrics = createMetrics(new Registry());
  const limiter = new EndpointLimiter(options.limits ?? { perEndpoint: 4, total: 8 }, metrics.inFlight);
  const sent: { eventId: string; sequence: number }[] = [];
  let answer: (event: PaymentEvent) => Promise<AttemptResult> = async () => OK;
  const runner = new AttemptRunner({
    js,
    schedule: options.schedule ?? [0, 5_000],
    logger: createLogger('test', 'silent'),
    metrics,
    secrets: { secretsOf: async () => ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] },
    log,
    limiter,
    send: (event) => {
      sent.push({ eventId: event.eventId, sequence: event.sequence });
      return answer(event);
    },
  });
  /** The endpoint answers `event` only when the test lets it: the returned function does. */
  const holdAnswer = (held: PaymentEvent): ((result: AttemptResult) => void) => {
    let release: (result: AttemptResult) => void = () => undefined;
    const gate = new Promise<AttemptResult>((resolve) => (release = resolve));
    const before = answer;
    answer = (event) => (event.eventId === held.eventId ? gate : before(event));
    return (result) => release(result);
  };
  const answerWith = (result: AttemptResult) => (answer = async () => result);
  return { runner, log, published, sent, metrics, holdAnswer, answerWith };
}

/** An attempt message as the attempts consumer hands it out (a copy of its body, as parsed from the wire). */
function delivered(body: WebhookAttemptMessage, deliveryCount = 1): JsMsg {
  return {
    subject: Subjects.webhookAttemptDue,
    seq: 1,
    info: { deliveryCount },
    json: () => JSON.parse(JSON.stringify(body)) as unknown,
  } as unknown as JsMsg;
}

const attemptMessage = (event: PaymentEvent, attempt = 1): WebhookAttemptMessage => ({
  ...firstAttempt({ event, paymentId: event.paymentId, storeId: event.storeId, url: HOOK_URL }, 1),
  attempt,
});

/** Lets what is in flight run on until `done` holds (a send started, a step published). */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

describe('waiting attempts', () => {
  it('back off from 250 ms, doubling, up to their cap, moved by at most ±10 %', () => {
    const middle = () => 0.5;
    expect([0, 1, 2, 3, 4, 5].map((n) => waitDelay(n, 3_000, middle))).toEqual([250, 500, 1000, 2000, 3000, 3000]);
    expect(waitDelay(1_000, 30_000, middle)).toBe(30_000);
    expect(waitDelay(0, 3_000, () => 0)).toBe(225);
    expect(waitDelay(0, 3_000, () => 0.999_999)).toBe(275);
  });
});

describe("a payment's events", () => {
  it('go in order: one taken in while the earlier is in flight waits behind it, and is woken when it ends', async () => {
    const { runner, log, published, sent, holdAnswer } = harness();
    const paymentId = randomUUID();
    const [created, paid] = [paymentEvent(paymentId, 1), paymentEvent(paymentId, 2)];
    const answerCreated = holdAnswer(created);
    const takingCreated = runner.takeIn(created);
    await until(() => sent.length === 1);

    await runner.takeIn(paid);
    expect(log.find(paid.eventId)).toMatchObject({ status: 'pending', claimed: 0 });
    expect(log.find(created.eventId)).toMatchObject({ successorWaiting: true });
    expect(published).toEqual([]);

    answerCreated(OK);
    await takingCreated;
    const wake = published.map((p) => p.body as WebhookAttemptMessage).find((m) => m.eventId === paid.eventId);
    expect(published.map((p) => p.id)).toEqual([`${paid.eventId}:1:1:wake`]);
    expect(await runner.handle(delivered(wake!))).toEqual({ ack: true });
    expect(sent.map((s) => s.sequence)).toEqual([1, 2]);
    expect([log.find(created.eventId)?.status, log.find(paid.eventId)?.status]).toEqual(['delivered', 'delivered']);
  });

  it('go in order when the later one comes first: it looks again until the earlier is recorded and done', async () => {
    const { runner, log, published, sent } = harness();
    const paymentId = randomUUID();
    const [created, paid] = [paymentEvent(paymentId, 1), paymentEvent(paymentId, 2)];
    await runner.takeIn(paid);
    expect(sent).toEqual([]);
    const [held] = published.map((p) => p.body as WebhookAttemptMessage);
    expect(held).toMatchObject({ eventId: paid.eventId, reason: 'held', waits: 1 });
    expect(held?.missingSince).not.toBeNull();

    await runner.takeIn(created);
    expect(await runner.handle(delivered(held!))).toEqual({ ack: true });
    expect(sent.map((s) => s.sequence)).toEqual([1, 2]);
    expect(log.find(paid.eventId)).toMatchObject({ status: 'delivered', runAttempts: 1 });
  });

  it('go in order when one in the middle comes last: the later one looks again rather than wait on a mark', async () => {
    const { runner, log, published, sent, holdAnswer } = harness();
    const paymentId = randomUUID();
    const [created, paid, refunded] = [1, 2, 3].map((n) => paymentEvent(paymentId, n)) as [
      PaymentEvent,
      PaymentEvent,
      PaymentEvent,
    ];
    const answerCreated = holdAnswer(created);
    const takingCreated = runner.takeIn(created);
    await until(() => sent.length === 1);

    // created in flight, paid not recorded yet: a mark on created would wake paid, never refunded.
    await runner.takeIn(refunded);
    const looks = () =>
      published.map((p) => p.body as WebhookAttemptMessage).filter((m) => m.eventId === refunded.eventId);
    expect(looks()).toMatchObject([{ reason: 'held', waits: 1 }]);

    await runner.takeIn(paid);
    answerCreated(OK);
    await takingCreated;
    const wake = published.map((p) => p.body as WebhookAttemptMessage).find((m) => m.eventId === paid.eventId);
    expect(await runner.handle(delivered(wake!))).toEqual({ ack: true });
    expect(await runner.handle(delivered(looks()[0]!))).toEqual({ ack: true });
    expect(sent.map((s) => s.sequence)).toEqual([1, 2, 3]);
    expect(log.find(refunded.eventId)).toMatchObject({ status: 'delivered', runAttempts: 1 });
  });
});

describe("a payment's later event", () => {
  it('reads nothing of the log for its order when this replica finished the earlier ones, delivered or dead', async () => {
    const { runner, log, sent, answerWith } = harness({ schedule: [0] });
    const paymentId = randomUUID();
    const [created, paid, refunded] = [1, 2, 3].map((sequence) => paymentEvent(paymentId, sequence));
    const reads = jest.spyOn(log, 'earlierDeliveries');
    answerWith(DOWN);
    await runner.takeIn(created!);
    expect(log.find(created!.eventId)).toMatchObject({ status: 'dead' });
    answerWith(OK);
    await runner.takeIn(paid!);
    await runner.takeIn(refunded!);
    expect(reads).not.toHaveBeenCalled();
    expect(sent.map((s) => s.sequence)).toEqual([1, 2, 3]);
  });

  it('reads the log when an earlier one was finished by another replica', async () => {
    const one = harness();
    const another = harness({ log: one.log });
    const paymentId = randomUUID();
    const [created, paid, refunded] = [1, 2, 3].map((sequence) => paymentEvent(paymentId, sequence));
    const reads = jest.spyOn(one.log, 'earlierDeliveries');
    await one.runner.takeIn(created!);
    await another.runner.takeIn(paid!);
    expect(reads).toHaveBeenCalledTimes(1);
    // The first replica finished event 1, not event 2: it reads before event 3 goes.
    await one.runner.takeIn(refunded!);
    expect(reads).toHaveBeenCalledTimes(2);
    expect(one.sent.concat(another.sent).map((s) => s.sequence)).toEqual([1, 3, 2]);
  });
});

describe('an endpoint with no room', () => {
  it('hands an attempt message back to its consumer for later, before reading the log, and takes it when free', async () => {
    const { runner, log, published, sent, holdAnswer } = harness({ limits: { perEndpoint: 1, total: 1 } });
    const inFlight = paymentEvent(randomUUID(), 1);
    const answerInFlight = holdAnswer(inFlight);
    const takingInFlight = runner.takeIn(inFlight);
    await until(() => sent.length === 1);

    // Taken in while busy: recorded, unclaimed, and its first attempt put on WEBHOOK_ATTEMPTS.
    const waiting = paymentEvent(randomUUID(), 1);
    await runner.takeIn(waiting);
    expect(log.find(waiting.eventId)).toMatchObject({ status: 'pending', claimed: 0 });
    expect(published.map((p) => p.id)).toEqual([`${waiting.eventId}:1:1`]);

    const reads = jest.spyOn(log, 'claim');
    const outcome = await runner.handle(delivered(published[0]!.body as WebhookAttemptMessage, 1));
    expect(outcome).toMatchObject({ ack: false });
    expect(outcome.ack === false && outcome.retryInMs).toBeGreaterThanOrEqual(225);
    expect(outcome.ack === false && outcome.retryInMs).toBeLessThanOrEqual(275);
    expect(reads).not.toHaveBeenCalled();
    expect(published).toHaveLength(1);

    answerInFlight(OK);
    await takingInFlight;
    expect(await runner.handle(delivered(published[0]!.body as WebhookAttemptMessage, 2))).toEqual({ ack: true });
    expect(sent.map((s) => s.eventId)).toEqual([inFlight.eventId, waiting.eventId]);
    expect(log.find(waiting.eventId)).toMatchObject({ status: 'delivered', claimed: 1 });
  });

  it("waits in the replica for another endpoint's next freed slot while a backlog holds every slot", async () => {
    const { runner, published, sent, holdAnswer } = harness({ limits: { perEndpoint: 1, total: 1 } });
    const inFlight = paymentEvent(randomUUID(), 1);
    const answerInFlight = holdAnswer(inFlight);
    const takingInFlight = runner.takeIn(inFlight);
    await until(() => sent.length === 1);
    await runner.takeIn(paymentEvent(randomUUID(), 1));
    const lone = { ...paymentEvent(randomUUID(), 1), webhookUrl: 'https://other.example/hooks' };
    await runner.takeIn(lone);
    const [backlogMsg, loneMsg] = published.map((p) => p.body as WebhookAttemptMessage);

    // The busy endpoint, being served, has its next attempt handed back; the other one waits here.
    expect(await runner.handle(delivered(backlogMsg!))).toMatchObject({ ack: false });
    const handlingLone = runner.handle(delivered(loneMsg!));
    answerInFlight(OK);
    await takingInFlight;
    expect(await handlingLone).toEqual({ ack: true });
    expect(sent.map((s) => s.eventId)).toEqual([inFlight.eventId, lone.eventId]);
  });
});

describe('a claimed attempt found again', () => {
  it('is made again under the next number, by the same message, once its lease has lapsed', async () => {
    const { runner, log, published, sent } = harness();
    const event = paymentEvent(randomUUID(), 1);
    await log.record(event, HOOK_URL, new Date(), false);
    // Claimed by a replica that died mid-attempt: its lease ran out without a result.
    await log.claim(
      { eventId: event.eventId, run: 1, attempt: 1 },
      new Date(Date.now() - 2 * CONTRACT_SETTINGS.leaseMs),
    );

    expect(await runner.handle(delivered(attemptMessage(event)))).toEqual({ ack: true });
    expect(sent).toHaveLength(1);
    expect(published).toEqual([]);
    const doc = log.find(event.eventId);
    expect(doc?.attempts.map((a) => [a.key, a.outcome])).toEqual([
      ['1:1', null],
      ['1:2', 'success'],
    ]);
    expect(doc).toMatchObject({ status: 'delivered', runAttempts: 2 });
  });

  it('is handed back until its lease lapses while the claimant may still be at it', async () => {
    const { runner, log, sent } = harness();
    const event = paymentEvent(randomUUID(), 1);
    await log.record(event, HOOK_URL, new Date(), true);
    const outcome = await runner.handle(delivered(attemptMessage(event)));
    expect(outcome).toMatchObject({ ack: false });
    expect(outcome.ack === false && outcome.retryInMs).toBeGreaterThan(CONTRACT_SETTINGS.leaseMs - 1_000);
    expect(sent).toEqual([]);
  });
});

describe('a failed attempt', () => {
  it('is tried again by the schedule, then dead-lettered once the schedule has no more', async () => {
    const { runner, log, published, sent, answerWith, metrics } = harness({ schedule: [0, 5_000] });
    answerWith(DOWN);
    const event = paymentEvent(randomUUID(), 1);
    const before = Date.now();
    await runner.takeIn(event);
    const retry = published[0];
    expect(retry).toMatchObject({
      subject: `webhooks.attempts.scheduled.${event.paymentId}.1`,
      target: 'webhooks.attempts.due',
    });
    expect((retry!.body as WebhookAttemptMessage).attempt).toBe(2);
    expect(retry!.at!.getTime() - before).toBeGreaterThanOrEqual(4_500);
    expect(log.find(event.eventId)).toMatchObject({ status: 'pending', runAttempts: 1, lastError: 'HTTP 503' });

    expect(await runner.handle(delivered(retry!.body as WebhookAttemptMessage))).toEqual({ ack: true });
    const letter = published[1];
    expect(letter).toMatchObject({ subject: Subjects.webhookDeadLetter, id: `${event.eventId}.run1` });
    expect(letter!.body).toMatchObject({
      eventId: event.eventId,
      reason: 'exhausted',
      attempts: 2,
      lastError: 'HTTP 503',
    });
    expect(log.find(event.eventId)).toMatchObject({ status: 'dead', deadReason: 'exhausted', runAttempts: 2 });
    expect(sent).toHaveLength(2);
    expect((await metrics.deadLetters.get()).values[0]?.value).toBe(1);
    expect((await metrics.retries.get()).values[0]?.value).toBe(1);
  });

  it('is dead-lettered at once when its target was refused, with attempts left', async () => {
    const { runner, log, published, answerWith } = harness({ schedule: [0, 5_000, 60_000] });
    answerWith(REFUSED);
    const event = paymentEvent(randomUUID(), 1);
    await runner.takeIn(event);
    expect(published.map((p) => [p.subject, (p.body as WebhookDeadLetter).reason])).toEqual([
      [Subjects.webhookDeadLetter, 'refused'],
    ]);
    expect(log.find(event.eventId)).toMatchObject({ status: 'dead', deadReason: 'refused', runAttempts: 1 });
  });
});

describe('a retry a later event of its payment waits for', () => {
  const HOUR = 60 * 60_000;
  /** Two replicas over one log: the retry is remembered by the one that failed, not by the other. */
  function replicas() {
    const log = new InMemoryDeliveryLog(CONTRACT_SETTINGS);
    const [a, b] = [harness({ schedule: [0, HOUR], log }), harness({ schedule: [0, HOUR], log })];
    return { log, a, b };
  }

  it('goes ahead once its endpoint answered again, and wakes the later event', async () => {
    const { log, a, b } = replicas();
    const paymentId = randomUUID();
    const [created, paid] = [paymentEvent(paymentId, 1), paymentEvent(paymentId, 2)];
    a.answerWith(DOWN);
    await a.runner.takeIn(created);
    expect(log.find(created.eventId)).toMatchObject({ status: 'pending', claimed: 1, runAttempts: 1 });
    // The other replica hears the endpoint answer 2xx after that failure.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await b.runner.takeIn(paymentEvent(randomUUID(), 1));

    await b.runner.takeIn(paid);
    expect(log.find(paid.eventId)).toMatchObject({ status: 'pending', claimed: 0 });
    const ahead = b.published.find((p) => p.id === `${created.eventId}:1:2:ahead`);
    expect(ahead?.subject).toBe(Subjects.webhookAttemptDue);
    expect(ahead?.body).toMatchObject({ eventId: created.eventId, attempt: 2, ahead: true });
    expect((await b.metrics.broughtForward.get()).values[0]?.value).toBe(1);

    expect(await b.runner.handle(delivered(ahead!.body as WebhookAttemptMessage))).toEqual({ ack: true });
    const wake = b.published.find((p) => p.id === `${paid.eventId}:1:1:wake`);
    expect(await b.runner.handle(delivered(wake!.body as WebhookAttemptMessage))).toEqual({ ack: true });
    expect(b.sent.slice(1).map((s) => s.eventId)).toEqual([created.eventId, paid.eventId]);
    expect([log.find(created.eventId)?.status, log.find(paid.eventId)?.status]).toEqual(['delivered', 'delivered']);

    // Its schedule fires an hour later and finds the attempt made.
    const scheduled = a.published[0]!.body as WebhookAttemptMessage;
    expect(await a.runner.handle(delivered(scheduled))).toEqual({ ack: true });
    expect(a.sent).toHaveLength(1);
  });

  it('waits for its schedule while its endpoint has not answered since it failed', async () => {
    const { log, b } = replicas();
    const paymentId = randomUUID();
    const [created, paid] = [paymentEvent(paymentId, 1), paymentEvent(paymentId, 2)];
    b.answerWith(DOWN);
    await b.runner.takeIn(created);
    await b.runner.takeIn(paid);
    expect(log.find(paid.eventId)).toMatchObject({ status: 'pending', claimed: 0 });
    expect(log.find(created.eventId)).toMatchObject({ successorWaiting: true });
    expect(b.published.map((p) => p.id ?? p.subject)).toEqual([`webhooks.attempts.scheduled.${paymentId}.1`]);
  });
});

describe("an endpoint's waiting retries", () => {
  it('go at once when the endpoint answers 2xx again, and their schedule then finds them made', async () => {
    const { runner, log, published, sent, answerWith, metrics } = harness({ schedule: [0, 60 * 60_000] });
    answerWith(DOWN);
    const waiting = paymentEvent(randomUUID(), 1);
    await runner.takeIn(waiting);
    const scheduled = published[0]!.body as WebhookAttemptMessage;
    // An hour out, less its jitter (±10 %).
    expect(published[0]!.at!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);

    // Another payment's event to the same endpoint is delivered: the waiting retry goes now.
    answerWith(OK);
    await runner.takeIn(paymentEvent(randomUUID(), 1));
    const broughtForward = published[1]!;
    expect(broughtForward).toMatchObject({
      subject: Subjects.webhookAttemptDue,
      id: `${waiting.eventId}:1:2:endpoint-back`,
    });
    expect(broughtForward.body).toMatchObject({ eventId: waiting.eventId, attempt: 2, reason: 'attempt' });
    expect((await metrics.broughtForward.get()).values[0]?.value).toBe(1);

    expect(await runner.handle(delivered(broughtForward.body as WebhookAttemptMessage))).toEqual({ ack: true });
    expect(log.find(waiting.eventId)).toMatchObject({ status: 'delivered', runAttempts: 2 });
    // Its schedule fires an hour later: the attempt is made already, so nothing is sent again.
    expect(await runner.handle(delivered(scheduled))).toEqual({ ack: true });
    expect(sent.filter((s) => s.eventId === waiting.eventId)).toHaveLength(2);
    expect(published).toHaveLength(2);
  });

  it('are not brought forward by a success at another endpoint, nor once their schedule fired', async () => {
    const { runner, published, answerWith } = harness({ schedule: [0, 60 * 60_000, 60 * 60_000] });
    answerWith(DOWN);
    const waiting = paymentEvent(randomUUID(), 1);
    await runner.takeIn(waiting);
    answerWith(OK);
    await runner.takeIn({ ...paymentEvent(randomUUID(), 1), webhookUrl: 'https://other.example/hooks' });
    expect(published).toHaveLength(1);

    // Its schedule fires (made and failed again): what waits now is the next retry, once.
    answerWith(DOWN);
    expect(await runner.handle(delivered(published[0]!.body as WebhookAttemptMessage))).toEqual({ ack: true });
    expect((published[1]!.body as WebhookAttemptMessage).attempt).toBe(3);
    answerWith(OK);
    await runner.takeIn(paymentEvent(randomUUID(), 1));
    expect(published.slice(2).map((p) => [p.id, (p.body as WebhookAttemptMessage).attempt])).toEqual([
      [`${waiting.eventId}:1:3:endpoint-back`, 3],
    ]);
  });
});
