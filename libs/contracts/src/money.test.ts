import { brlToCents } from './money';

describe('brlToCents', () => {
  it.each([
    [25, 2500],
    [25.5, 2550],
    [19.99, 1999],
    [0.07, 7],
    [5.06, 506],
    [1234.56, 123456],
    [3000, 300000],
    [-10.5, -1050],
    [0, 0],
  ])('takes %p BRL as exactly %p centavos', (amount, cents) => {
    expect(brlToCents(amount)).toBe(cents);
  });

  it.each([
    // Float noise is no rounding licence: these are not 30.00, 5.06 or 0.30.
    29.999999999999996,
    5.0600000000000005,
    0.1 + 0.2,
    10.001,
    5.005,
    1e-7,
    // Whole, but beyond exact integer centavos.
    1e21,
    Number.MAX_SAFE_INTEGER,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])('refuses %p', (amount) => {
    expect(brlToCents(amount)).toBeNull();
  });
});
