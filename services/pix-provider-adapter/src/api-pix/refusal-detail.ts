/** The longest refusal detail kept: enough for a PSP's reason, not for a whole echoed request. */
const MAX_DETAIL_CHARS = 300;
const REDACTED = '[redacted]';

/**
 * A PSP's reason for refusing a request (its problem's `detail`), as the adapter may log it and
 * store it as a refund's failure reason, which reaches the merchant. A PSP may echo the request in
 * it, its Authorization header included, so every credential the client sent (the bearer token,
 * the client secret, the Basic value) is cut out of it, and it is bounded in length.
 */
export function refusalDetail(detail: string | undefined, status: number, credentialsSent: readonly string[]): string {
  if (!detail) return `HTTP ${status}`;
  let scrubbed = detail;
  for (const credential of credentialsSent) {
    if (credential) scrubbed = scrubbed.split(credential).join(REDACTED);
  }
  return scrubbed.length > MAX_DETAIL_CHARS ? `${scrubbed.slice(0, MAX_DETAIL_CHARS)}…` : scrubbed;
}
