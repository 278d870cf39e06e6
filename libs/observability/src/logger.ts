import pino, { type Logger, type LoggerOptions } from 'pino';
import { redact, redactFields, scrubText } from './redaction';
import { requestIdOfTrace } from './request-id';
import { traceFields } from './tracing';

/** Every line carries the trace and span it was written in, and the HTTP request id if any. */
function correlationFields(): Record<string, string> {
  const fields: Record<string, string> = { ...traceFields() };
  const requestId = requestIdOfTrace(fields.trace_id);
  if (requestId) fields.request_id = requestId;
  return fields;
}

/**
 * A log call's arguments made fit before pino reads them: the message and any printf argument
 * scrubbed (redaction.ts), and an error logged alone given its (scrubbed) message, which pino
 * would otherwise take raw. The fields object is made fit by the `log` formatter.
 */
function redactArguments(args: unknown[]): unknown[] {
  const [first] = args;
  const fields = first instanceof Error ? { err: first } : first;
  const rest = args.slice(1).map((arg) => (typeof arg === 'string' ? scrubText(arg) : redact(arg)));
  if (typeof fields === 'string') return [scrubText(fields), ...rest];
  const err = (fields as { err?: unknown } | null)?.err;
  if (rest.length === 0 && err instanceof Error) rest.push(scrubText(err.message));
  return [fields, ...rest];
}

/**
 * A service's logger. Nothing secret reaches a line, whatever is logged: every field is walked
 * (redaction.ts) so that a value under a secret's name (key, cert, passphrase, authorization,
 * cookie, password, secret, token, seed, signature...) is censored at any depth, an error is told
 * without the options, request or response a client library keeps on it (got, the MongoDB
 * driver, NATS), and text is cleared of PEM keys, HTTP credentials, URL passwords and nkey seeds.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(loggerOptions(service, level));
}

/** The options of every service's logger (createLogger), whatever stream it writes to. */
export function loggerOptions(service: string, level: string): LoggerOptions {
  return {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      bindings: redactFields,
      log: redactFields,
    },
    // pino's own `err` serializer would take the redacted error for a raw one and dress it again.
    serializers: { err: (fields: unknown) => fields },
    hooks: {
      logMethod(args, method) {
        method.apply(this, redactArguments(args) as Parameters<typeof method>);
      },
    },
    mixin: correlationFields,
  };
}

export type { Logger };

/**
 * The line a service writes when it cannot start, without a logger (its configuration or its
 * connections failed): the error's stack, scrubbed as a log line is, since a driver's message may
 * quote what it was given (the MongoDB driver's `Invalid connection string "mongodb://user:password@..."`).
 */
export function writeStartFailure(service: string, err: unknown): void {
  process.stderr.write(`${service} failed to start: ${scrubText(String(err instanceof Error ? err.stack : err))}\n`);
}
