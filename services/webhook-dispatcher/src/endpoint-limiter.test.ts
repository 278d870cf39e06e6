import { Gauge, Registry } from 'prom-client';
import { EndpointLimiter, originOf, type AttemptKind, type Slot } from './endpoint-limiter';

/** Lets the grants made so far reach their waiters. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

function limiter(perEndpoint: number, total: number) {
  const gauge = new Gauge({
    name: 'webhook_in_flight',
    help: 'h',
    labelNames: ['endpoint'],
    registers: [new Registry()],
  });
  return { limiter: new EndpointLimiter({ perEndpoint, total }, gauge), gauge };
}

const A = 'https://a.example';
const B = 'https://b.example';
const C = 'https://c.example';

describe('EndpointLimiter', () => {
  it('gives each endpoint its slots, and no more than the total', () => {
    const { limiter: l } = limiter(2, 3);
    const a1 = l.tryTake(A);
    const a2 = l.tryTake(A);
    expect([a1, a2].every(Boolean)).toBe(true);
    expect(l.tryTake(A)).toBeNull();
    expect(l.tryTake(B)).not.toBeNull();
    expect(l.tryTake(B)).toBeNull(); // the total
    a1?.release();
    a1?.release(); // once only
    expect(l.tryTake(B)).not.toBeNull();
    expect(l.tryTake(B)).toBeNull();
  });

  it('lets eight attempts a slot wait in line, and tells the next one the endpoint is busy', async () => {
    const { limiter: l } = limiter(1, 10);
    const held = l.tryTake(A)!;
    const waiters = Array.from({ length: 8 }, () => l.take(A, 'again'));
    expect(await l.take(A, 'again')).toEqual({ busy: true });
    held.release();
    const first = await waiters[0]!;
    expect('slot' in first).toBe(true);
  });

  it('passes a freed slot to the first in line, never to a newcomer', async () => {
    const { limiter: l } = limiter(1, 10);
    const held = l.tryTake(A)!;
    const order: string[] = [];
    const first = l.take(A, 'again').then((o) => (order.push('first'), o));
    const second = l.take(A, 'again').then((o) => (order.push('second'), o));
    held.release();
    // The slot went to the first waiter as it was freed: a newcomer finds none.
    expect(l.tryTake(A)).toBeNull();
    const granted = await first;
    if (!('slot' in granted)) throw new Error('the first in line got no slot');
    granted.slot.release();
    await second;
    expect(order).toEqual(['first', 'second']);
  });

  it("serves an endpoint's first attempts up to half its slots while owed ones wait, and owed ones the rest", async () => {
    const { limiter: l } = limiter(4, 100);
    const held: Slot[] = [];
    const served: string[] = [];
    const wait = (kind: AttemptKind, name: string) =>
      void l.take(A, kind).then((o) => {
        if (!('slot' in o)) throw new Error(`${name} got no slot`);
        served.push(name);
        held.push(o.slot);
      });
    // A backlog of retries holds every slot; four more wait, then four new events' first attempts.
    for (let i = 0; i < 4; i++) wait('again', `held ${i}`);
    await settled();
    for (let i = 0; i < 4; i++) wait('again', `retry ${i}`);
    for (let i = 0; i < 4; i++) wait('first', `new ${i}`);
    expect(l.tryTake(A)).toBeNull();
    served.length = 0;
    // Each slot freed by a retry: the new events get two (their share), then the retries.
    for (let i = 0; i < 4; i++) {
      held.shift()!.release();
      await settled();
    }
    expect(served).toEqual(['new 0', 'new 1', 'retry 0', 'retry 1']);
    // A first attempt's slot goes to the next first attempt; a retry's to the next retry.
    held.shift()!.release();
    held.shift()!.release();
    await settled();
    expect(served.slice(4)).toEqual(['new 2', 'new 3']);
    held.shift()!.release();
    await settled();
    expect(served.slice(6)).toEqual(['retry 2']);
    // With no first attempt left waiting, the retries take every slot freed.
    held.shift()!.release();
    await settled();
    expect(served.slice(7)).toEqual(['retry 3']);
  });

  it('lets first attempts take every slot when nothing owed waits, and owed ones when no first attempt does', async () => {
    const { limiter: l } = limiter(2, 100);
    const a = [l.tryTake(A)!, l.tryTake(A)!];
    const retries = [l.take(A, 'again'), l.take(A, 'again')];
    a[0]!.release();
    a[1]!.release();
    const slots = await Promise.all(retries);
    expect(slots.every((o) => 'slot' in o)).toBe(true);
    for (const o of slots) if ('slot' in o) o.slot.release();
    expect([l.tryTake(A), l.tryTake(A)].every(Boolean)).toBe(true);
  });

  it('lets a first attempt wait in its own line when the owed line is full', async () => {
    const { limiter: l } = limiter(1, 10);
    const retry = l.tryTake(A)!;
    const owed = Array.from({ length: 8 }, () => l.take(A, 'again'));
    expect(await l.take(A, 'again')).toEqual({ busy: true });
    const first = l.take(A, 'first');
    retry.release();
    expect('slot' in (await first)).toBe(true);
    l.stop();
    await Promise.all(owed);
  });

  it('lets an endpoint with nothing in flight wait while every slot is taken, and serves it before a busier line', async () => {
    const { limiter: l } = limiter(2, 3);
    const [a1, a2] = [l.tryTake(A)!, l.tryTake(A)!];
    const order: string[] = [];
    const backlog = l.take(A, 'again').then((o) => (order.push(A), o));
    l.tryTake(B);
    // Every slot is taken: an endpoint with attempts in flight is being served and goes back to its
    // consumer; one with none waits for the next slot freed.
    expect(await l.take(A, 'again')).toEqual({ busy: true });
    const lone = l.take(C, 'again').then((o) => (order.push(C), o));
    a1.release();
    // A has one in flight and C none: the freed slot goes to C, although A's attempt waited first.
    expect('slot' in (await lone)).toBe(true);
    a2.release();
    expect('slot' in (await backlog)).toBe(true);
    expect(order).toEqual([C, A]);
  });

  it('tells an endpoint with nothing in flight that it is busy once its line is full', async () => {
    const { limiter: l } = limiter(1, 1);
    l.tryTake(A);
    const waiting = Array.from({ length: 8 }, () => l.take(B, 'again'));
    expect(await l.take(B, 'again')).toEqual({ busy: true });
    l.stop();
    await Promise.all(waiting);
  });

  it('wakes every waiter with stopped when the replica stops', async () => {
    const { limiter: l } = limiter(1, 10);
    l.tryTake(A);
    const waiter = l.take(A, 'again');
    l.stop();
    expect(await waiter).toEqual({ stopped: true });
    expect(l.tryTake(B)).toBeNull();
  });

  it('counts in-flight attempts per endpoint, and forgets an idle endpoint', async () => {
    const { limiter: l, gauge } = limiter(2, 10);
    const a = l.tryTake(A)!;
    const b = l.tryTake(A)!;
    expect((await gauge.get()).values).toEqual([{ labels: { endpoint: A }, value: 2 }]);
    a.release();
    b.release();
    expect((await gauge.get()).values).toEqual([]);
  });

  it('counts endpoints by URL origin', () => {
    expect(originOf('https://shop.example:8443/hooks?x=1')).toBe('https://shop.example:8443');
    expect(originOf('not a url')).toBe('not a url');
  });
});
