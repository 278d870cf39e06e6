import { AccessTokens } from './tokens';

describe('the PSP simulator access tokens', () => {
  it('knows a token it issued until it expires, and no other', () => {
    const tokens = new AccessTokens(60_000);
    const { token, expiresInSeconds } = tokens.issue(1_000);
    expect(expiresInSeconds).toBe(60);
    expect(tokens.valid(token, 1_000)).toBe(true);
    expect(tokens.valid(token, 61_000)).toBe(false);
    expect(tokens.valid(`${token}x`, 1_000)).toBe(false);
    expect(tokens.valid(undefined, 1_000)).toBe(false);
  });

  it('issues a different token each time', () => {
    const tokens = new AccessTokens(60_000);
    expect(tokens.issue().token).not.toBe(tokens.issue().token);
  });
});
