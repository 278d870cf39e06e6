import { PixApiError, PixConnectionError } from './errors.js';

export interface Transport {
  baseUrl: string;
  token: string;
  fetch: typeof fetch;
  timeoutMs: number;
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One HTTP exchange: the JSON answer of a 2xx, a PixApiError for any other status, a PixConnectionError without one. */
export async function send<T>(transport: Transport, request: Request): Promise<T> {
  const url = new URL(transport.baseUrl.replace(/\/+$/, '') + request.path);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${transport.token}`,
    ...request.headers,
  };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await transport.fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(transport.timeoutMs),
    });
    text = await response.text();
  } catch (err) {
    throw new PixConnectionError(
      `${request.method} ${request.path}: ${err instanceof Error ? err.message : String(err)}`,
      {
        cause: err,
      },
    );
  }
  const json = parseJson(text);
  if (response.ok) return json as T;
  const message =
    typeof json === 'object' && json !== null && typeof (json as { message?: unknown }).message === 'string'
      ? (json as { message: string }).message
      : text || response.statusText;
  throw new PixApiError(response.status, message);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
