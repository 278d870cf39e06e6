import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';

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

/** One registry per process, with the default process metrics, labelled with the service name. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop lag histogram samples at each tick of a timer: every 10 ms by default, which
  // alone cost an idle service 0.33 % of a core (measured: 0.75 % against 0.42 % without it). At
  // 100 ms it costs 0.03 % and still sees any stall longer than that.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
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
