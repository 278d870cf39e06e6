import { randomBytes } from 'node:crypto';

/** The sandbox PSP's ISPB (the 8 digits after the prefix of every id it issues). */
const SANDBOX_ISPB = '99999999';

/**
 * An id as BACEN shapes endToEndIds (prefix E) and return ids (prefix D): prefix + ISPB +
 * yyyyMMddHHmm + 11 alphanumerics, 32 characters.
 */
export function newEndToEndId(prefix: 'E' | 'D' = 'E', at = new Date()): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  const tail = randomBytes(16)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 11)
    .padEnd(11, '0');
  return `${prefix}${SANDBOX_ISPB}${stamp}${tail}`;
}

/**
 * The id of a devolução the PSP makes on its own (a MED return): API Pix lets the PSP choose it
 * (1-35 alphanumerics). Its own form, never the receiver's (txid + refund number), so nothing on
 * the receiver's side can take it for one of its refunds.
 */
export function newPspDevolucaoId(): string {
  return `PSP${randomBytes(16).toString('hex').toUpperCase()}`;
}

/** The id of an infraction (a MED claim) the PSP files against a received Pix: its own form. */
export function newInfractionId(): string {
  return `INF${randomBytes(12).toString('hex').toUpperCase()}`;
}
