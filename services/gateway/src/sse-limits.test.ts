import { Registry } from '@pix/observability';
import { refusalAnswer, StreamLimiter } from './sse-limits';

describe('StreamLimiter', () => {
  it('caps streams per store and per replica, and counts refusals', async () => {
    const registry = new Registry();
    const limiter = new StreamLimiter({ perReplica: 3, perStore: 2 }, registry);
    const a1 = limiter.acquire('dashboard', 'a');
    const a2 = limiter.acquire('payment_page', 'a');
    expect([a1.ok, a2.ok]).toEqual([true, true]);
    expect(limiter.acquire('payment_page', 'a')).toEqual({ ok: false, reason: 'store_full' });
    const b1 = limiter.acquire('payment_page', 'b');
    expect(b1.ok).toBe(true);
    expect(limiter.acquire('dashboard', 'c')).toEqual({ ok: false, reason: 'replica_full' });
    expect(limiter.count()).toBe(3);

    if (!a1.ok) throw new Error('unreachable');
    a1.release();
    a1.release(); // a second release gives nothing back twice
    expect(limiter.count()).toBe(2);
    expect(limiter.count('a')).toBe(1);
    expect(limiter.acquire('dashboard', 'c').ok).toBe(true);

    const text = await registry.metrics();
    expect(text).toContain('sse_connections{kind="dashboard"} 1');
    expect(text).toContain('sse_connections{kind="payment_page"} 2');
    expect(text).toContain('sse_connections_refused_total{kind="payment_page",reason="store_full"} 1');
    expect(text).toContain('sse_connections_refused_total{kind="dashboard",reason="replica_full"} 1');
  });

  it('answers 503 when the replica is full and 429 when the store is', () => {
    expect(refusalAnswer('replica_full').status).toBe(503);
    expect(refusalAnswer('store_full').status).toBe(429);
  });
});
