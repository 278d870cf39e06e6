/**
 * Imported first by main.ts: the OpenTelemetry instrumentations patch http, express and mongoose
 * as they load, so tracing must start before anything requires them.
 */
import { startTracing } from '@pix/observability';

startTracing('psp-simulator');
