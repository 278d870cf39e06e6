import { randomBytes } from 'node:crypto';
import { sha256Hex } from '@pix/runtime';
import { StoreModel, TokenModel, type TokenDoc } from './records';

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** A bearer token: 256 random bits, URL-safe. */
function newToken(): string {
  return `pxt_${randomBytes(32).toString('base64url')}`;
}

export class StoreNotFound extends Error {}

/** A token's record as authentication reads it. */
export type TokenRecord = Pick<TokenDoc, 'storeId' | 'expiresAt' | 'revokedAt'>;

/** The stores' API tokens, kept by hash. */
export class Tokens {
  async issue(storeId: string, expiresInSeconds?: number): Promise<{ token: string; expiresAt: string | null }> {
    if (!(await StoreModel.exists({ _id: { $eq: storeId } }))) throw new StoreNotFound(storeId);
    const token = newToken();
    const now = new Date();
    const expiresAt = expiresInSeconds ? new Date(now.getTime() + expiresInSeconds * 1000) : null;
    await TokenModel.create({ _id: hashToken(token), storeId, createdAt: now, expiresAt, revokedAt: null });
    return { token, expiresAt: expiresAt?.toISOString() ?? null };
  }

  /** Revokes a token; its hash when it existed, null otherwise. */
  async revoke(token: string): Promise<string | null> {
    const tokenHash = hashToken(token);
    const result = await TokenModel.updateOne({ _id: { $eq: tokenHash } }, { $set: { revokedAt: new Date() } });
    return result.matchedCount === 1 ? tokenHash : null;
  }

  /** A token's record by its hash; null when unknown. */
  find(tokenHash: string): Promise<TokenRecord | null> {
    return TokenModel.findById(tokenHash).select({ storeId: 1, expiresAt: 1, revokedAt: 1 }).lean<TokenRecord>().exec();
  }
}
