import http from 'node:http';
import type { Registry } from 'prom-client';

/** A named readiness condition: NATS connected, database reachable, consumers bound... */
export type ReadinessCheck = { name: string; check: () => boolean | Promise<boolean> };

/**
 * A check that has not answered by then counts as failed: a probe must answer quickly, always
 * (Kubernetes gives a probe one second by default), and a replica that cannot reach NATS or its
 * database within this says so now rather than when a client's request would have timed out.
 */
const CHECK_TIMEOUT_MS = 800;

function runCheck(check: ReadinessCheck['check']): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  const result = Promise.resolve()
    .then(check)
    .catch(() => false);
  return Promise.race([result, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The operations port of a service, separate from any public port: /healthz (the process is
 * alive), /readyz (every readiness check passes) and /metrics (Prometheus text format).
 */
export function startOpsServer(options: {
  port: number;
  host: string;
  registry: Registry;
  checks: () => ReadinessCheck[];
  /** Ready only between the end of start-up and the start of shutdown. */
  lifecycle: () => { started: boolean; draining: boolean };
}): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    void handle(req.url ?? '/', res).catch(() => {
      res.writeHead(500).end();
    });
  });

  async function handle(url: string, res: http.ServerResponse): Promise<void> {
    const path = url.split('?')[0];
    if (path === '/healthz') {
      json(res, 200, { status: 'ok' });
    } else if (path === '/readyz') {
      const checks = options.checks();
      const outcomes = await Promise.all(checks.map(({ check }) => runCheck(check)));
      const results = Object.fromEntries(checks.map(({ name }, i) => [name, outcomes[i] === true]));
      const { started, draining } = options.lifecycle();
      const ready = started && !draining && Object.values(results).every(Boolean);
      json(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', started, draining, checks: results });
    } else if (path === '/metrics') {
      res.writeHead(200, { 'Content-Type': options.registry.contentType });
      res.end(await options.registry.metrics());
    } else {
      json(res, 404, { status: 'not_found' });
    }
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
