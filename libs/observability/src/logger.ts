import pino, { type Logger } from 'pino';

/**
 * Paths that must never reach a log line in clear: bearer tokens, webhook secrets and customer
 * e-mails (LGPD). They are censored wherever they appear in a logged object, one level deep.
 */
export const REDACTED_PATHS = [
  'token',
  'authorization',
  'secret',
  'secrets',
  'webhookSecret',
  'email',
  'headers.authorization',
  'req.headers.authorization',
  '*.token',
  '*.authorization',
  '*.secret',
  '*.secrets',
  '*.webhookSecret',
  '*.email',
];

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  });
}

export type { Logger };
