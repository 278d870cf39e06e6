import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { got, keptAliveAgents } from './index';

describe('keptAliveAgents', () => {
  let server: http.Server;
  let url: string;
  let connections = 0;

  beforeAll(async () => {
    // A server as Node makes one: it closes a connection idle for 5 s (keepAliveTimeout's default).
    server = http.createServer((_req, res) => res.end('ok'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('reuses a connection between calls, and drops it before a 5 s server would close it under a call', async () => {
    const agent = keptAliveAgents();
    const call = () => got(url, { agent, retry: { limit: 0 } }).text();
    await call();
    await call();
    expect(connections).toBe(1);
    // Past the pool's idle limit, still inside the server's: a new connection, not one about to close.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    await call();
    expect(connections).toBe(2);
    agent.http.destroy();
  }, 10_000);
});
