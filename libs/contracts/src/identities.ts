/**
 * Who speaks on NATS, each with credentials of its own: the four services; `admin`, the operator
 * (the admin CLI, which the tests and the bench use too); and `provisioner`, the step that creates
 * the JetStream streams, consumers and the AUTH bucket before the services start (docs/decisions/nats-identities.md).
 */
export const SERVICE_IDENTITIES = ['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher'] as const;
export const NATS_IDENTITIES = [...SERVICE_IDENTITIES, 'admin', 'provisioner'] as const;

export type ServiceIdentity = (typeof SERVICE_IDENTITIES)[number];
export type NatsIdentity = (typeof NATS_IDENTITIES)[number];

/**
 * Where an identity's replies arrive: its own inbox prefix, so that it can subscribe to its replies
 * and to nobody else's (the default `_INBOX.>` would let any client read every reply on the bus).
 */
export function inboxPrefix(identity: NatsIdentity): string {
  return `_INBOX.${identity}`;
}
