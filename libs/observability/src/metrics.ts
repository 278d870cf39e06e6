import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Registry, type Metric } from 'prom-client';

/** Metrics recorded by shared library code (HTTP middleware, NATS, JetStream), see libraryMetric. */
const libraryMetrics: Metric[] = [];
const registries: Registry[] = [];

/**
 * prom-client's gauges of active handles, requests and resources end in `_total`, which Prometheus
 * reserves for counters (`promtool check metrics` flags them); they are left out.
 */
const MISNAMED_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * How busy the event loop was between two scrapes (0 to 1): libuv counts its idle time, so this
 * needs no timer, and sees every stall that the lag histogram's one sample a second can miss.
 */
function eventLoopUtilization(): Gauge {
  let last = performance.eventLoopUtilization();
  return new Gauge({
    name: 'nodejs_eventloop_utilization_ratio',
    help: 'Share of the time since the previous scrape the event loop spent working rather than waiting.',
    registers: [],
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, last).utilization);
      last = now;
    },
  });
}

/** One registry per process, with the default process metrics, labelled with the service name. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop lag histogram samples at each tick of a timer, and each tick wakes an idle
  // process: every 10 ms by default; at 100 ms it was still about 1 ms of CPU a second per Node
  // process on the 2-core VM (a wakeup costs 0.1-0.2 ms there): the four idle services spent
  // 10.5 ms a second with it, 6.0 without. At 1 s it samples once a second: any stall of a second
  // or more is seen, a shorter one by chance, and the utilization gauge below sees them all.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1000 });
  registry.registerMetric(eventLoopUtilization());
  for (const name of MISNAMED_DEFAULT_METRICS) registry.removeSingleMetric(name);
  for (const metric of libraryMetrics) registry.registerMetric(metric);
  registries.push(registry);
  return registry;
}

/**
 * Declares a metric that library code records (create it with `registers: []`). It appears on the
 * service's registry without every call site (callRpc, startConsumer, the HTTP middleware) having
 * to be handed one; code outside a service, like the admin CLI, records into nothing.
 */
export function libraryMetric<T extends Metric>(metric: T): T {
  libraryMetrics.push(metric);
  for (const registry of registries) registry.registerMetric(metric);
  return metric;
}

export { Counter, Gauge, Histogram, Registry } from 'prom-client';
