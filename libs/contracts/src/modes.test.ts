import { modeScope, tokenPrefix } from './modes';

describe('modes', () => {
  it('mints tokens whose prefix names their mode', () => {
    expect(tokenPrefix(false)).toBe('pxt_test_');
    expect(tokenPrefix(true)).toBe('pxt_live_');
  });

  it('names a store in test mode by its id and in live mode apart, never a prefix of one another', () => {
    const storeId = '6f1c1a52-9a5d-4c7e-9d8e-2f6b1c0a7e11';
    expect(modeScope(storeId, false)).toBe(storeId);
    const live = modeScope(storeId, true);
    expect(live).not.toBe(storeId);
    expect(`${live}|`.startsWith(`${storeId}|`)).toBe(false);
  });
});
