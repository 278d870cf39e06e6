import { parseBrlInput } from './brl-input';

describe('parseBrlInput', () => {
  it('reads amounts as merchants type them', () => {
    expect(parseBrlInput('40,00')).toBe(40);
    expect(parseBrlInput(' R$ 40,5 ')).toBe(40.5);
    expect(parseBrlInput('1.234,50')).toBe(1234.5);
    expect(parseBrlInput('1.234')).toBe(1234);
    expect(parseBrlInput('40.25')).toBe(40.25);
    expect(parseBrlInput('40')).toBe(40);
  });

  it('refuses what is not an amount', () => {
    for (const bad of ['', 'abc', '40,001', '1,234.50', '-5', '4e2', '12.34.56', '40,']) {
      expect(parseBrlInput(bad)).toBeNull();
    }
  });
});
