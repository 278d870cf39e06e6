import { chooseRequestId } from './request-id';

describe('chooseRequestId', () => {
  it("keeps a caller's short, plain id", () => {
    expect(chooseRequestId('req-42')).toBe('req-42');
    expect(chooseRequestId('0b7a1c9e-5d3f-4c2a-9f0e-1a2b3c4d5e6f')).toBe('0b7a1c9e-5d3f-4c2a-9f0e-1a2b3c4d5e6f');
  });

  it('replaces a missing, long or unsafe one with a new UUID', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const given of [undefined, '', 'x'.repeat(129), 'line\nbreak', '<script>', 'a b']) {
      expect(chooseRequestId(given)).toMatch(uuid);
    }
  });
});
