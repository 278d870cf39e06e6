import http from 'node:http';
import net from 'node:net';
import { ErrorMessages, ParserErrorMessages } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, type ApiResponse } from '../support/api';
import { PATH_FORMS } from '../support/contract';
import { sharedStack } from '../support/stack';

const stack = sharedStack();
const { hostname, port } = new URL(stack.gatewayUrl);
let store: StoreCredentials;

beforeAll(async () => {
  store = await createStore(stack, 'HTTP errors store');
});

/** Any method, TRACE included (fetch refuses to send it). */
function request(method: string, path: string, token?: string): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, stack.gatewayUrl),
      { method, headers: token ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === 'string') headers.set(name, value);
          resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : text, headers });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe.each(PATH_FORMS)('a method %s does not serve', (base) => {
  const id = '00000000-0000-4000-8000-000000000000';

  it.each([
    ['TRACE', base, 'GET, POST, HEAD, OPTIONS'],
    ['PUT', base, 'GET, POST, HEAD, OPTIONS'],
    ['DELETE', base, 'GET, POST, HEAD, OPTIONS'],
    ['PATCH', base, 'GET, POST, HEAD, OPTIONS'],
    ['POST', `${base}/${id}`, 'GET, HEAD, OPTIONS'],
    ['DELETE', `${base}/${id}`, 'GET, HEAD, OPTIONS'],
  ])('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
    const res = await request(method, path, store.token);
    expect(res).toMatchObject({ status: 405, body: { statusCode: 405, message: ErrorMessages.methodNotAllowed } });
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('OPTIONS answers the Allow header', async () => {
    const res = await request('OPTIONS', base, store.token);
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
  });

  it('HEAD is served where GET is', async () => {
    const res = await request('HEAD', base, store.token);
    expect(res.status).toBe(200);
  });

  it('an unknown path under it stays 404', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await request(method, `${base}/${id}/unknown`, store.token);
      expect(res).toMatchObject({ status: 404, body: { statusCode: 404, message: ErrorMessages.routeNotFound } });
    }
  });
});

describe('methods on the other served paths', () => {
  it.each([
    ['DELETE', '/public-api/v1/openapi.json', 'GET, HEAD, OPTIONS'],
    ['POST', '/pay/00000000-0000-4000-8000-000000000000', 'GET, HEAD, OPTIONS'],
    ['PUT', '/public-api/v1/qrcodes/00000000-0000-4000-8000-000000000000.png', 'GET, HEAD, OPTIONS'],
  ])('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
    const res = await request(method, path);
    expect(res).toMatchObject({ status: 405, body: { statusCode: 405, message: ErrorMessages.methodNotAllowed } });
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('GET on the sandbox actions answers 405 with Allow: POST, OPTIONS', async () => {
    const res = await api(
      stack.gatewayUrl,
      'GET',
      '/public-api/v1/sandbox/payments/00000000-0000-4000-8000-000000000000/pay',
      { token: store.token },
    );
    expect(res).toMatchObject({ status: 405, body: { statusCode: 405 } });
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('an unknown path stays 404 for any method', async () => {
    for (const method of ['GET', 'POST', 'TRACE']) {
      const res = await request(method, '/no/such/route');
      expect(res).toMatchObject({ status: 404, body: { statusCode: 404, message: ErrorMessages.routeNotFound } });
    }
  });
});

/** Sends raw bytes on a fresh connection and reads the answer until the server closes it. */
function rawRequest(bytes: Buffer | string): Promise<{ status: number; headers: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      try {
        resolve({ status, headers: head, body: JSON.parse(body) });
      } catch {
        reject(new Error(`not a JSON answer: ${JSON.stringify(text)}`));
      }
    });
  });
}

describe("requests Node's HTTP parser refuses", () => {
  it.each([
    ['an unknown method', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 501, ParserErrorMessages.methodUnknown],
    [
      'raw non-ASCII bytes in the path',
      Buffer.concat([
        Buffer.from('GET /public-api/v1/pay'),
        Buffer.from([0xc3, 0xa9]),
        Buffer.from(' HTTP/1.1\r\n\r\n'),
      ]),
      400,
      ParserErrorMessages.malformed,
    ],
    [
      'a 20 KB header',
      `GET /public-api/v1/payments HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
      431,
      ParserErrorMessages.headersTooLarge,
    ],
    [
      'both Transfer-Encoding and Content-Length',
      'POST /public-api/v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
      400,
      ParserErrorMessages.malformed,
    ],
  ])('%s answers its status with the error body', async (_what, bytes, status, message) => {
    const res = await rawRequest(bytes);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ statusCode: status, message });
    expect(res.headers).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(res.headers).toMatch(/\r\nConnection: close(\r\n|$)/);
  });

  it('leaves the server serving: a well-formed request afterwards is answered', async () => {
    await rawRequest('FOO / HTTP/1.1\r\nHost: x\r\n\r\n');
    const res = await api(stack.gatewayUrl, 'GET', '/public-api/v1/openapi.json');
    expect(res.status).toBe(200);
  });
});
