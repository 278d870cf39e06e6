import { refusalDetail } from './refusal-detail';

describe('refusalDetail', () => {
  const token = 'tok_4f1c9b2e8a7d';
  const secret = 'client-secret-marker';
  const basic = Buffer.from(`client-id:${secret}`).toString('base64');

  it("keeps a PSP's reason as it gave it", () => {
    expect(refusalDetail('Valor acima do disponível para devolução', 400, [token, secret, basic])).toBe(
      'Valor acima do disponível para devolução',
    );
  });

  it('cuts out every credential the client sent, however often it is echoed', () => {
    const echoed = `request rejected: Authorization: Bearer ${token}; retry with ${token}; Basic ${basic} (${secret})`;
    const detail = refusalDetail(echoed, 403, [token, secret, basic]);
    for (const credential of [token, secret, basic]) expect(detail).not.toContain(credential);
    expect(detail).toBe(
      'request rejected: Authorization: Bearer [redacted]; retry with [redacted]; Basic [redacted] ([redacted])',
    );
  });

  it('bounds a long detail and names the status when there is none', () => {
    expect(refusalDetail('x'.repeat(1000), 400, [])).toHaveLength(301);
    expect(refusalDetail(undefined, 422, [token])).toBe('HTTP 422');
    expect(refusalDetail('', 409, [token])).toBe('HTTP 409');
  });

  it('ignores an empty credential (a token not yet issued)', () => {
    expect(refusalDetail('no token', 400, [''])).toBe('no token');
  });
});
