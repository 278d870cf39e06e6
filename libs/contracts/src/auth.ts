import { z } from 'zod';

/**
 * The AUTH key-value bucket (JetStream KV): the facts about tokens and stores that must reach every
 * gateway replica within a second. The gateway's admin handlers write it after MongoDB; every
 * replica watches it and keeps its in-memory auth cache fresh without a database round trip.
 */
export const AuthBucket = {
  name: 'AUTH',
  /** A key's value is its latest fact; nothing reads an older one. */
  history: 1,
  /** Who may write, read and watch it: the gateway alone, which owns stores and tokens. */
  users: ['gateway'],
  tokenKey: (tokenHash: string) => `token.${tokenHash}`,
  storeKey: (storeId: string) => `store.${storeId}`,
  sessionKey: (sessionId: string) => `session.${sessionId}`,
} as const;

/**
 * Value under token.<sha256>: the token was revoked (revocation is final), or issued. An issued
 * fact only makes a replica forget that it found the hash unknown (its negative cache): it never
 * makes a token valid, which only the database says.
 */
export const AuthTokenStateSchema = z.union([
  z.object({ revoked: z.literal(true) }),
  z.object({ issued: z.literal(true) }),
]);
/** Value under store.<storeId>: whether the store may use the API. */
export const AuthStoreStateSchema = z.object({ active: z.boolean() });
/**
 * Value under session.<id>: a dashboard session was ended (Sair) before its expiry, so a copy of
 * its cookie is refused too; `endedUntil` (epoch ms) is when the cookie would have expired anyway,
 * after which the fact is no longer needed.
 */
export const AuthSessionStateSchema = z.object({ endedUntil: z.number().int() });
