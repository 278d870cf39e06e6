/** The API answered with an error: its status and its message (`{statusCode, message}`). */
export class PixApiError extends Error {
  override readonly name = 'PixApiError';
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** No answer came: the connection failed or the request timed out (after the retries, for create). */
export class PixConnectionError extends Error {
  override readonly name = 'PixConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A webhook that is not signed with the secret, is too old, or is not an event of this API. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
