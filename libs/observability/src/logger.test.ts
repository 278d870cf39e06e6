import { Writable } from 'node:stream';
import pino from 'pino';
import { got } from '@pix/http';
import { loggerOptions } from './logger';

const MARKERS = {
  key: '-----BEGIN PRIVATE KEY-----\nMARKERKEYBODY7f3a\n-----END PRIVATE KEY-----\n',
  cert: 'MARKER-cert-7f3a',
  passphrase: 'MARKER-passphrase-7f3a',
  basic: Buffer.from('MARKER-client:MARKER-secret').toString('base64'),
  body: 'MARKER-body-7f3a',
};

/** A service's logger writing into memory: its lines, parsed. */
function capture(level = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino(loggerOptions('test', level), stream), lines };
}

function expectNoMarker(lines: string[]): void {
  const text = lines.join('\n');
  for (const marker of ['MARKER', 'MARKERKEYBODY', MARKERS.basic]) expect(text).not.toContain(marker);
}

describe('createLogger', () => {
  it('writes a got error without the options it keeps (TLS key, headers, body)', async () => {
    const { logger, lines } = capture();
    const failed = await got
      .post('https://127.0.0.1:1/oauth/token', {
        https: { key: MARKERS.key, certificate: MARKERS.cert, passphrase: MARKERS.passphrase },
        headers: { authorization: `Basic ${MARKERS.basic}` },
        body: MARKERS.body,
        retry: { limit: 0 },
      })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    // got keeps all of it on the error: what a plain serialisation would write.
    expect(JSON.stringify((failed as { options: unknown }).options)).toContain('MARKERKEYBODY');

    logger.warn({ err: failed }, 'token request failed');
    logger.error(failed as Error);
    logger.info({ context: { call: { attempt: { last: { err: failed } } } } }, 'nested five levels down');

    expect(lines).toHaveLength(3);
    const first = JSON.parse(lines[0] ?? '{}') as { err: Record<string, unknown> };
    expect(first.err).toMatchObject({ type: 'RequestError', message: expect.any(String) as string });
    expect(first.err).not.toHaveProperty('options');
    expectNoMarker(lines);
  });

  it('censors secrets by name at any depth, and credentials inside messages', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        a: { b: { c: { d: { e: { key: 'MARKER-1', headers: { authorization: 'MARKER-2', cookie: 'MARKER-3' } } } } } },
      },
      'deep',
    );
    logger.info({
      settings: { PIX_CLIENT_SECRET: 'MARKER-4', FACT_SIGNING_KEY: 'MARKER-5', MONGO_PASSWORD: 'MARKER-6' },
    });
    logger.warn(`token endpoint said: Basic ${MARKERS.basic}`);
    logger.warn('printf %s and %j', `Bearer ${MARKERS.basic}`, { token: 'MARKER-7' });
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      a: {
        b: { c: { d: { e: { key: '[redacted]', headers: { authorization: '[redacted]', cookie: '[redacted]' } } } } },
      },
    });
    expectNoMarker(lines);
  });

  it('keeps the fields of an ordinary line as they are', () => {
    const { logger, lines } = capture();
    logger.info({ req: { method: 'GET', path: '/healthz' }, statusCode: 200, durationMs: 3 }, 'http request');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      level: 'info',
      service: 'test',
      msg: 'http request',
      req: { method: 'GET', path: '/healthz' },
      statusCode: 200,
      durationMs: 3,
    });
  });
});
