import { centsToBrl } from '@pix/contracts';

/** An amount as API Pix writes it: BRL with two decimals, as a string ("25.50"). */
export function valorFrom(amountCents: number): string {
  return centsToBrl(amountCents).toFixed(2);
}
