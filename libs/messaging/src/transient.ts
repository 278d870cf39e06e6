/**
 * A failure of the infrastructure, not of the code: the database or NATS away for a moment, another
 * writer holding the same payment. The caller gets a 503 (the spec's clients retry 5xx, with the same
 * Idempotency-Key), where a 500 would mean a bug. The MongoDB driver's, mongoose's and NATS's own
 * errors say so by name, the server's by code; our own mark themselves `transient`.
 */
export function isTransient(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { name, transient, code, message } = err as {
    name?: unknown;
    transient?: unknown;
    code?: unknown;
    message?: unknown;
  };
  if (transient === true) return true;
  // A socket cut under a driver: the MongoDB driver lets a write after the server's FIN (EPIPE) through unwrapped.
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (typeof name !== 'string') return false;
  if (TRANSIENT_ERRORS.test(name)) return true;
  const text = typeof message === 'string' ? message : '';
  // mongoose queues operations while disconnected and fails them after bufferTimeoutMS.
  if (name === 'MongooseError') return /buffering timed out/.test(text);
  if (name !== 'MongoServerError' || typeof code !== 'number') return false;
  return TRANSIENT_SERVER_CODES.has(code) || (code === INTERNAL_ERROR && LOST_POSTGRES.test(text));
}

/** The drivers' names for "not reachable now" or "not in time": MongoDB, mongoose, NATS, JetStream, got. */
const TRANSIENT_ERRORS =
  /^(Mongo(Network|NetworkTimeout|ServerSelection|NotConnected|PoolCleared|TopologyClosed|ServerClosed|ClientClosed|WaitQueueTimeout)Error|MongooseServerSelectionError|TimeoutError|NoResponders|JetStreamNotEnabled|ConnectionError|ClosedConnectionError|DrainingConnectionError|RequestError)$/;

/** Node's codes for a network connection that failed or was cut. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * MongoDB server codes that mean "not now": host unreachable or not found, MaxTimeMSExpired,
 * network timeout, shutdown in progress, primary stepped down, ExceededTimeLimit, socket error, not
 * primary, interrupted at shutdown or by a state change (the driver's retryable set, and time-outs).
 */
const TRANSIENT_SERVER_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
/** FerretDB answers InternalError when it lost, or cannot get, its PostgreSQL connection. */
const INTERNAL_ERROR = 1;
const LOST_POSTGRES =
  /\bEOF\b|connection refused|connection reset|broken pipe|conn closed|closed pool|failed to connect|dial error|i\/o timeout|context deadline exceeded|database system is (starting up|shutting down|not yet accepting|in recovery mode)|terminating connection|SQLSTATE (08|57P)/i;
