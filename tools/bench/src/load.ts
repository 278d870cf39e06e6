import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** One bounded load run (fixed duration, fixed connections) from this process onto loopback. */
export async function runLoad(options: {
  url: string;
  method: 'GET' | 'POST';
  token: string;
  body?: string;
  connections: number;
  /** A run is bounded by a request count (equal work on both sides) or else by a duration. */
  requests?: number;
  durationSeconds: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method,
    headers: {
      authorization: `Bearer ${options.token}`,
      ...(options.body ? { 'content-type': 'application/json' } : {}),
    },
    body: options.body,
    connections: options.connections,
    ...(options.requests ? { amount: options.requests } : { duration: options.durationSeconds }),
  });
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
