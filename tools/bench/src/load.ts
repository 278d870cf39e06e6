import autocannon from 'autocannon';
import type { Throughput } from './stats';

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
