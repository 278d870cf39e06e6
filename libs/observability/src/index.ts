/** Logs, metrics, traces and the ops server (health, readiness, metrics) every service runs. */
export { createLogger, writeStartFailure, type Logger } from './logger';
export { createRegistry, libraryMetric, Counter, Gauge, Histogram, Registry } from './metrics';
export { observeHttp } from './http-observability';
export { startOpsServer, type ReadinessCheck } from './ops-server';
export { startTracing, shutdownTracing, httpRequestsInstrumented, traceContextHeaders } from './tracing';
