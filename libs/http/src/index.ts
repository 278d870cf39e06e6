import http from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';

/**
 * got, the platform's HTTP client. got ships only as an ES module; Node 20.19+ loads it through
 * require(), but TypeScript refuses to compile a CommonJS import of it, so it is required here,
 * once, with its real types.
 */
type Got = typeof import('got', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loaded = require('got') as Got;

export const { default: got, HTTPError, RequestError, TimeoutError } = loaded;
/** An HTTP method as got takes it. */
export type Method = import('got', { with: { 'resolution-mode': 'import' } }).Method;

/**
 * What a failed got call says, without what got keeps of it: a RequestError holds the call's
 * options (the TLS key, the headers, the body) and an HTTPError its response too, which no log
 * line may get. `cause` is the error under got's (Node's own, with its code and syscall), if any.
 */
export interface CallFailure {
  /** The answer's status, when there was one. */
  status?: number;
  code?: string;
  message: string;
  cause?: Error;
}

export function callFailure(err: unknown): CallFailure {
  if (err instanceof RequestError) {
    // An answer came (an HTTPError, a body that did not parse): its status tells it, as the message may quote the body.
    if (err.response)
      return { status: err.response.statusCode, code: err.code, message: `HTTP ${err.response.statusCode}` };
    return { code: err.code, message: err.message, cause: err.cause instanceof Error ? err.cause : undefined };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}

/**
 * How long a kept-alive connection may sit idle in a client's pool: less than the 5 s after which
 * a Node server (and many others) closes one. A request sent on a connection the server is just
 * closing fails with "other side closed" or ECONNRESET, and the platform's calls that are sent
 * once (a callback, a refund's PUT, a webhook attempt) would fail for nothing.
 */
const IDLE_CONNECTION_MS = 4000;

/** A mutual TLS client's PEM: its certificate and key, and the CA that signed the server's certificate. */
export interface MutualTls {
  certificate: string;
  key: string;
  certificateAuthority: string;
}

/**
 * Connection pools for got (`agent`) that keep connections between calls and drop idle ones in time.
 * With `tls`, every https connection of the pool presents that client certificate and trusts that CA
 * only, through one secure context made here: given to got per call instead, the key and certificates
 * would be parsed again for each new connection (a quarter of a handshake's CPU, paid by every
 * connection a PSP's restart or a burst of errors makes), and got's options, which its errors carry,
 * would hold the key. `maxConnections` bounds the connections open to each host (Node's default: no
 * bound); a call beyond it waits in the pool for one to free, within its own timeout (got's
 * `timeout.request` counts from the call, not from its connection).
 */
export function keptAliveAgents(tls?: MutualTls, maxConnections = Infinity): KeptAliveAgents {
  const secureContext =
    tls && createSecureContext({ cert: tls.certificate, key: tls.key, ca: tls.certificateAuthority });
  const pool = { keepAlive: true, timeout: IDLE_CONNECTION_MS, maxSockets: maxConnections };
  return {
    http: new http.Agent(pool),
    https: new https.Agent({ ...pool, ...(secureContext && { secureContext }) }),
  };
}

export interface KeptAliveAgents {
  http: http.Agent;
  https: https.Agent;
}

/** What a pool holds now: connections open (busy or idle), and calls waiting for one. */
export interface PoolUse {
  open: number;
  waiting: number;
}

export function poolUse(agents: KeptAliveAgents): PoolUse {
  const count = (byHost: NodeJS.ReadOnlyDict<readonly unknown[]>) =>
    Object.values(byHost).reduce((sum, list) => sum + (list?.length ?? 0), 0);
  const use = { open: 0, waiting: 0 };
  for (const agent of [agents.http, agents.https]) {
    use.open += count(agent.sockets) + count(agent.freeSockets);
    use.waiting += count(agent.requests);
  }
  return use;
}
