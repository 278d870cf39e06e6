import autocannon from 'autocannon';
import { paceRequests } from './pace';
import { throughputOf, type Throughput } from './stats';

/** One HTTP request of a load: where, and as which store. */
export interface Target {
  path: string;
  token: string;
}

/**
 * A closed-loop HTTP load from this process onto loopback for a fixed time: `connections` clients,
 * each sending its next request when the previous answer arrives, cycling through `targets`.
 * Only 2xx answers count as done; latency percentiles cover every answer.
 */
export async function runLoad(options: {
  baseUrl: string;
  method: 'GET' | 'POST';
  targets: readonly Target[];
  body?: string;
  connections: number;
  seconds: number;
}): Promise<Throughput> {
  let next = 0;
  const target = () => options.targets[next++ % options.targets.length] as Target;
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: options.method,
        ...(options.body ? { body: options.body } : {}),
        setupRequest: (request) => {
          const { path, token } = target();
          return {
            ...request,
            path,
            headers: {
              ...request.headers,
              authorization: `Bearer ${token}`,
              ...(options.body ? { 'content-type': 'application/json' } : {}),
            },
          };
        },
      },
    ],
  });
  return {
    perSecond: result['2xx'] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors,
  };
}

/**
 * An open-loop HTTP load: `count` requests sent at `ratePerSecond` whatever the answers (a slow
 * answer does not hold back the next request), as merchants' creates arrive, cycling through
 * `targets`. It ends when every request is answered; latency percentiles cover the 2xx answers.
 * Issue 41's "fixed 50/s" figures: at that rate nothing is shared between requests (no NATS
 * flush, no database round trip serves two), which the closed loop's figures hide.
 */
export async function runPaced(options: {
  baseUrl: string;
  method: 'GET' | 'POST';
  targets: readonly Target[];
  body?: string;
  count: number;
  ratePerSecond: number;
}): Promise<Throughput> {
  const latencies: number[] = [];
  const keys = Array.from({ length: options.count }, (_, i) => String(i));
  const started = performance.now();
  const paced = await paceRequests(keys, options.ratePerSecond, async (key) => {
    const { path, token } = options.targets[Number(key) % options.targets.length] as Target;
    const sent = performance.now();
    const res = await fetch(new URL(path, options.baseUrl), {
      method: options.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(options.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body ? { body: options.body } : {}),
    });
    await res.arrayBuffer();
    if (res.ok) latencies.push(performance.now() - sent);
    return res.ok;
  });
  const failed = await paced.refused;
  return throughputOf(latencies, (performance.now() - started) / 1000, failed);
}
