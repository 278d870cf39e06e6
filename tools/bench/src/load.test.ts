import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runPaced } from './load';

describe('runPaced (an open loop at a fixed rate)', () => {
  let server: http.Server;
  let baseUrl: string;
  const seen: { path: string; auth: string | undefined; body: string }[] = [];
  let held: (() => void) | undefined;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
        // Every third request is refused, and the second is answered only once the last has come:
        // a loop that waited for answers would never send it.
        const n = seen.length;
        const answer = () => {
          res.statusCode = n % 3 === 0 ? 400 : 200;
          res.end('{}');
        };
        if (n === 2) held = answer;
        else answer();
        if (n === 12) held?.();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends every request whatever the answers, and counts the 2xx ones', async () => {
    const result = await runPaced({
      baseUrl,
      method: 'POST',
      targets: [
        { path: '/a', token: 'one' },
        { path: '/b', token: 'two' },
      ],
      body: '{"amount":5}',
      count: 12,
      ratePerSecond: 40,
    });
    expect(result.ok).toBe(8);
    expect(result.failed).toBe(4);
    expect(seen.map((s) => s.path)).toEqual(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? '/a' : '/b')));
    expect(seen[0]?.auth).toBe('Bearer one');
    expect(seen.every((s) => s.body === '{"amount":5}')).toBe(true);
    expect(result.p50Ms).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
  });
});
