/** Pix moves centavos: amounts are integer centavos inside the system and BRL numbers outside. */
export const MIN_AMOUNT_CENTS = 500;
export const MAX_AMOUNT_CENTS = 300_000;

/** Converts a BRL number with at most two decimals to integer centavos; null when it has more. */
export function brlToCents(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const cents = Math.round(amount * 100);
  // 0.1 + 0.2 style float noise is tolerated; a third decimal place is not.
  if (Math.abs(cents - amount * 100) > 1e-6) return null;
  return cents;
}

export function centsToBrl(cents: number): number {
  return cents / 100;
}
