import { createRegistry } from './metrics';

/** The value of a series of the registry's exposition, by its name. */
async function valueOf(registry: ReturnType<typeof createRegistry>, name: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${name}{`));
  if (!line) throw new Error(`no ${name} in the registry`);
  return Number(line.split(' ').at(-1));
}

describe("a service's registry", () => {
  it('tells how busy the event loop was since the previous scrape, with no timer of its own', async () => {
    const registry = createRegistry('metrics-test');
    await valueOf(registry, 'nodejs_eventloop_utilization_ratio');
    const until = Date.now() + 200;
    while (Date.now() < until) {
      // the event loop is busy: nothing else runs
    }
    expect(await valueOf(registry, 'nodejs_eventloop_utilization_ratio')).toBeGreaterThan(0.8);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await valueOf(registry, 'nodejs_eventloop_utilization_ratio')).toBeLessThan(0.3);
    expect(await registry.metrics()).toContain('nodejs_eventloop_lag_p99_seconds{service="metrics-test"}');
  });
});
