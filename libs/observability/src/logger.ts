import pino, { type Logger } from 'pino';
import { requestIdOfTrace } from './request-id';
import { traceFields } from './tracing';

/**
 * Paths that must never reach a log line in clear: bearer tokens, webhook secrets (in clear or
 * sealed), passwords, the PSP's callback secret, webhook signatures and customer e-mails (LGPD).
 * They are censored wherever they appear in a logged object, up to two levels deep, and in the
 * request headers the HTTP middleware logs.
 */
export const REDACTED_PATHS = [
  'token',
  'authorization',
  'secret',
  'secrets',
  'webhookSecret',
  'webhookSecrets',
  'sealed',
  'password',
  'email',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-psp-callback-secret"]',
  'req.headers["webhook-signature"]',
  '*.token',
  '*.authorization',
  '*.secret',
  '*.secrets',
  '*.webhookSecret',
  '*.webhookSecrets',
  '*.sealed',
  '*.password',
  '*.email',
  '*.*.token',
  '*.*.secret',
  '*.*.password',
  '*.*.email',
];

/** Every line carries the trace and span it was written in, and the HTTP request id if any. */
function correlationFields(): Record<string, string> {
  const fields: Record<string, string> = { ...traceFields() };
  const requestId = requestIdOfTrace(fields.trace_id);
  if (requestId) fields.request_id = requestId;
  return fields;
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    mixin: correlationFields,
  });
}

export type { Logger };
