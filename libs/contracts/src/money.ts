/** Pix moves centavos: amounts are integer centavos inside the system and BRL numbers outside. */
export const MIN_AMOUNT_CENTS = 500;
export const MAX_AMOUNT_CENTS = 300_000;

/** The step of a BRL amount (one centavo), as the OpenAPI document declares it (`multipleOf`). */
export const AMOUNT_STEP_BRL = 0.01;
/** The largest amount API Pix can carry: its `valor` is at most ten digits, a point and two. */
export const PIX_MAX_AMOUNT_CENTS = 999_999_999_999;

/** A BRL amount as JavaScript (and JSON) writes a number: digits, then at most two decimals. */
const TWO_DECIMALS = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Converts a BRL number with at most two decimals to integer centavos; null when it has more, or
 * when its centavos are beyond exact integers. The decimals are read from the number's shortest
 * decimal form (the one JSON.stringify writes and a client sent), never from `amount * 100`, whose
 * rounding would take 29.999999999999996 for 30.00.
 */
export function brlToCents(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  // Exponent forms (below 1e-6 or from 1e21) are never whole centavos within the safe integers.
  const match = TWO_DECIMALS.exec(String(amount));
  if (!match) return null;
  const [, sign, units = '', decimals = ''] = match;
  const cents = Number(units) * 100 + Number(decimals.padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) return null;
  return sign ? -cents : cents;
}

export function centsToBrl(cents: number): number {
  return cents / 100;
}
