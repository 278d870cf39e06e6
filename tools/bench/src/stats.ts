/** A closed-loop measurement: how many operations per second succeeded, and how long they took. */
export interface Throughput {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Operations that succeeded (2xx for HTTP). */
  ok: number;
  /** Errors, timeouts and non-2xx answers. */
  failed: number;
}

/** The value below which `fraction` of the sorted samples fall (nearest rank); null when there are none. */
export function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? null;
}

/**
 * Runs `op` from `concurrency` loops for `seconds` (each loop starts its next operation when the
 * previous one ends), the way autocannon drives HTTP connections, so driver ceilings and API figures
 * are taken alike: only operations that end within the time count, as autocannon counts only the
 * answers that arrive within it. Operations still running then are awaited (uncounted) for as long
 * again at most, so that they weigh less on the next measurement without holding the run.
 */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  op: (n: number) => Promise<unknown>,
): Promise<Throughput> {
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await op(next++);
        if (performance.now() <= deadline) latencies.push(performance.now() - t0);
      } catch {
        failed++;
      }
    }
  };
  const loops = Promise.all(Array.from({ length: concurrency }, loop));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([loops, new Promise((resolve) => (timer = setTimeout(resolve, 2 * seconds * 1000)))]);
  clearTimeout(timer);
  return throughputOf(latencies, seconds, failed);
}

/** A run's figure from the latencies (ms) of its successful operations over `seconds`. */
export function throughputOf(latencies: number[], seconds: number, failed: number): Throughput {
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5) ?? 0,
    p99Ms: percentile(latencies, 0.99) ?? 0,
    ok: latencies.length,
    failed,
  };
}
