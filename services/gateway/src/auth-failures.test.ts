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
  const failures = () =>
    new AuthFailures({ failures: 3, windowMs: 60_000, maxAddresses: 2 }, createRegistry('test'), () => now);

  it('throttles an address past the limit until its window ends, and no other address', () => {
    const door = failures();
    for (let i = 0; i < 3; i++) {
      expect(door.throttled('a')).toBeNull();
      door.failed('a');
    }
    now += 15_000;
    expect(door.throttled('a')).toBe(45);
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
});
