import { createRegistry } from '@pix/observability';
import { AuthFailures, clientKey } from './auth-failures';

describe('clientKey', () => {
  it('counts IPv4 by address (mapped or not) and IPv6 by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey(undefined)).toBe('unknown');
  });
});

describe('AuthFailures', () => {
  let now = 1_000_000;
  const failures = (replicaFailures = 100) =>
    new AuthFailures(
      { failures: 3, replicaFailures, windowMs: 60_000, maxAddresses: 2 },
      createRegistry('test'),
      () => now,
    );

  it('throttles an address past the limit until its window ends, and no other address', () => {
    const door = failures();
    for (let i = 0; i < 3; i++) {
      expect(door.throttled('a')).toBeNull();
      door.failed('a');
    }
    now += 15_000;
    expect(door.throttled('a')).toEqual({ scope: 'address', retryAfterSeconds: 45 });
    expect(door.throttled('b')).toBeNull();
    now += 45_000;
    expect(door.throttled('a')).toBeNull();
    door.failed('a');
    expect(door.throttled('a')).toBeNull();
  });

  it('keeps at most maxAddresses windows, forgetting the least recently seen', () => {
    const door = failures();
    for (const address of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) door.failed(address);
    expect(door.size).toBe(2);
    expect(door.throttled('a')).toBeNull();
    expect(door.throttled('c')).not.toBeNull();
  });

  it('throttles every address once all of them together pass the replica limit, until its window ends', () => {
    const door = failures(5);
    const start = now;
    // Five addresses, one failure each: none is near its own limit, the replica is at its.
    for (const address of ['a', 'b', 'c', 'd']) {
      door.failed(address);
      expect(door.throttled('z')).toBeNull();
    }
    now += 20_000;
    door.failed('e');
    expect(door.throttled('z')).toEqual({ scope: 'replica', retryAfterSeconds: 40 });
    expect(door.throttled('a')).toEqual({ scope: 'replica', retryAfterSeconds: 40 });
    // The window is the first failure's: it ends a minute after it, whatever came since.
    now = start + 60_000;
    expect(door.throttled('z')).toBeNull();
    door.failed('f');
    expect(door.throttled('z')).toBeNull();
  });

  it("names the address's own limit first when both apply", () => {
    const door = failures(3);
    for (let i = 0; i < 3; i++) door.failed('a');
    expect(door.throttled('a')?.scope).toBe('address');
    expect(door.throttled('b')?.scope).toBe('replica');
  });

  it('counts its answers by limit', async () => {
    const registry = createRegistry('test');
    const door = new AuthFailures({ failures: 1, replicaFailures: 2, windowMs: 60_000 }, registry, () => now);
    door.failed('a');
    door.refused('address');
    door.refused('replica');
    door.refused('replica');
    const text = await registry.metrics();
    expect(text).toContain('auth_failures_total{answer="401",limit="none",service="test"} 1');
    expect(text).toContain('auth_failures_total{answer="429",limit="address",service="test"} 1');
    expect(text).toContain('auth_failures_total{answer="429",limit="replica",service="test"} 2');
  });
});
