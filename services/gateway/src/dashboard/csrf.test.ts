import type { Request } from 'express';
import { csrfAccepted, fromOrigin } from './csrf';

const ORIGIN = 'https://pix.example.com';

function request(headers: Record<string, string>, body?: Record<string, unknown>): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { get: (name: string) => lower[name.toLowerCase()], body } as unknown as Request;
}

describe('CSRF defence', () => {
  it('takes the Origin header, or the Referer when a browser sends no Origin', () => {
    expect(fromOrigin(request({ origin: ORIGIN }), ORIGIN)).toBe(true);
    expect(fromOrigin(request({ origin: 'https://evil.example' }), ORIGIN)).toBe(false);
    expect(fromOrigin(request({ origin: 'null' }), ORIGIN)).toBe(false);
    // A present but foreign Origin is not overridden by a matching Referer.
    expect(fromOrigin(request({ origin: 'https://evil.example', referer: `${ORIGIN}/dashboard` }), ORIGIN)).toBe(false);
    expect(fromOrigin(request({ referer: `${ORIGIN}/dashboard/pagamentos` }), ORIGIN)).toBe(true);
    expect(fromOrigin(request({ referer: 'https://pix.example.com.evil.example/x' }), ORIGIN)).toBe(false);
    expect(fromOrigin(request({ referer: 'not a url' }), ORIGIN)).toBe(false);
    expect(fromOrigin(request({}), ORIGIN)).toBe(false);
  });

  it('needs both the origin and the session token, from the header or the form', () => {
    const token = 'the-session-csrf-token';
    expect(csrfAccepted(request({ origin: ORIGIN, 'x-csrf-token': token }), ORIGIN, token)).toBe(true);
    expect(csrfAccepted(request({ origin: ORIGIN }, { csrf: token }), ORIGIN, token)).toBe(true);
    expect(csrfAccepted(request({ origin: ORIGIN, 'x-csrf-token': 'other' }), ORIGIN, token)).toBe(false);
    expect(csrfAccepted(request({ origin: ORIGIN }, { csrf: `${token}x` }), ORIGIN, token)).toBe(false);
    expect(csrfAccepted(request({ origin: ORIGIN }), ORIGIN, token)).toBe(false);
    expect(csrfAccepted(request({ origin: ORIGIN }, { csrf: ['array'] }), ORIGIN, token)).toBe(false);
    expect(csrfAccepted(request({ origin: 'https://evil.example', 'x-csrf-token': token }), ORIGIN, token)).toBe(false);
  });
});
