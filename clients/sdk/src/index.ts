import { verifyWebhook } from './webhooks.js';

export { createClient, type ClientOptions, type CreateOptions, type PixPaymentsClient } from './client.js';
export { PixApiError, PixConnectionError, WebhookVerificationError } from './errors.js';
export type { RetryOptions } from './retry.js';
export { verifyWebhook, type VerifyOptions, type WebhookHeaders } from './webhooks.js';
export type * from './types.js';
/** The generated types of the whole OpenAPI document. */
export type { components, paths, operations, webhooks as webhookOperations } from './openapi.js';

/** Webhook verification without a client: the secret is all it needs. */
export const webhooks = { verify: verifyWebhook };
