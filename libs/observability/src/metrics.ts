import { collectDefaultMetrics, Registry } from 'prom-client';

/** One registry per process, with the default process metrics, labelled with the service name. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export { Counter, Gauge, Histogram, Registry } from 'prom-client';
