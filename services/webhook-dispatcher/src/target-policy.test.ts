import dns, { type LookupAddress } from 'node:dns';
import { classifyAddress, guardedLookup, refuseUrl, TargetRefused } from './target-policy';

describe('classifyAddress: the SSRF guard refuses every internal address class', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['169.254.169.254', 'cloud metadata'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    // IPv4-mapped and IPv4-embedding IPv6 forms are judged by the IPv4 address they reach.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:100.64.0.1', 'carrierGradeNat'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['2001::1', 'teredo'],
  ])('%s is refused (%s)', (address, kind) => {
    const verdict = classifyAddress(address);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed ? '' : verdict.kind).toContain(kind);
  });

  it.each(['8.8.8.8', '200.160.2.3', '1.1.1.1', '2606:4700:4700::1111', '2804:14c::1', '::ffff:8.8.8.8'])(
    '%s (public unicast) is allowed',
    (address) => {
      expect(classifyAddress(address)).toEqual({ allowed: true });
    },
  );

  it('refuses what is not an IP address', () => {
    expect(classifyAddress('example.com').allowed).toBe(false);
  });
});

describe('refuseUrl: checks before connecting', () => {
  it.each([
    'http://127.0.0.1:8080/hooks',
    'http://[::1]/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'https://169.254.169.254/latest/meta-data',
    'http://[fd00:ec2::254]/',
    'http://100.64.0.1/',
    'http://10.0.0.1/',
    'http://0.0.0.0/',
  ])('refuses the IP literal in %s by default', (url) => {
    expect(refuseUrl(url, false)).toBeInstanceOf(TargetRefused);
  });

  it.each(['http://127.0.0.1:8080/hooks', 'http://[::1]/hooks', 'http://169.254.169.254/', 'http://10.0.0.1/'])(
    'allows %s with WEBHOOK_ALLOW_PRIVATE_TARGETS',
    (url) => {
      expect(refuseUrl(url, true)).toBeNull();
    },
  );

  it('refuses schemes other than http and https, whatever the flag', () => {
    expect(refuseUrl('ftp://example.com/x', true)?.message).toContain('ftp:');
    expect(refuseUrl('file:///etc/passwd', true)).toBeInstanceOf(TargetRefused);
  });

  it('leaves host names to the lookup guard', () => {
    expect(refuseUrl('https://merchant.example.com/hooks', false)).toBeNull();
  });
});

describe('guardedLookup: checks every resolved address', () => {
  function lookup(hostname: string, all: boolean) {
    const refusals: TargetRefused[] = [];
    return new Promise<{ err: Error | null; address: unknown; refusals: TargetRefused[] }>((resolve) => {
      guardedLookup((r) => refusals.push(r))(hostname, { all }, (err, address) => resolve({ err, address, refusals }));
    });
  }

  it.each([true, false])('refuses a name that resolves to loopback (all: %p)', async (all) => {
    const result = await lookup('localhost', all);
    expect(result.err).toBeInstanceOf(TargetRefused);
    expect(result.err?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(result.refusals).toHaveLength(1);
  });

  describe('with a resolver answering for merchant.example', () => {
    let answer: LookupAddress[] = [];
    beforeEach(() => {
      jest
        .spyOn(dns, 'lookup')
        .mockImplementation(((_host: string, _opts: unknown, cb: (...args: unknown[]) => void) =>
          cb(null, answer)) as unknown as typeof dns.lookup);
    });
    afterEach(() => jest.restoreAllMocks());

    it('hands the socket exactly the addresses it checked', async () => {
      answer = [
        { address: '200.160.2.3', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ];
      expect((await lookup('merchant.example', true)).address).toEqual(answer);
      expect((await lookup('merchant.example', false)).address).toBe('200.160.2.3');
    });

    it('refuses a name when any of its addresses is internal (one bad record is enough)', async () => {
      answer = [
        { address: '200.160.2.3', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ];
      const result = await lookup('merchant.example', true);
      expect(result.err?.message).toBe('target refused: merchant.example resolves to 10.0.0.5, a private address');
    });
  });

  it('passes resolution failures through, without calling them refusals', async () => {
    const result = await lookup('no-such-host.invalid', false);
    expect(result.err).not.toBeInstanceOf(TargetRefused);
    expect(result.err).not.toBeNull();
    expect(result.refusals).toHaveLength(0);
  });
});
