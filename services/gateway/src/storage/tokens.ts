import { randomBytes } from 'node:crypto';
import { tokenPrefix } from '@pix/contracts';
import { sha256Hex } from '@pix/runtime';
import { StoreModel, TokenModel, type TokenDoc } from './records';

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** A bearer token: 256 random bits, URL-safe, after the prefix that names its mode. */
function newToken(livemode: boolean): string {
  return `${tokenPrefix(livemode)}${randomBytes(32).toString('base64url')}`;
}

export class StoreNotFound extends Error {}

/** A token's record as authentication reads it. */
export type TokenRecord = Pick<TokenDoc, 'storeId' | 'livemode' | 'expiresAt' | 'revokedAt'>;

/** The stores' API tokens, kept by hash. */
export class Tokens {
  async issue(
    storeId: string,
    livemode: boolean,
    expiresInSeconds?: number,
  ): Promise<{ token: string; livemode: boolean; expiresAt: string | null }> {
    if (!(await StoreModel.exists({ _id: { $eq: storeId } }))) throw new StoreNotFound(storeId);
    const token = newToken(livemode);
    const now = new Date();
    const expiresAt = expiresInSeconds ? new Date(now.getTime() + expiresInSeconds * 1000) : null;
    await TokenModel.create({ _id: hashToken(token), storeId, livemode, createdAt: now, expiresAt, revokedAt: null });
    return { token, livemode, expiresAt: expiresAt?.toISOString() ?? null };
  }

  /** Revokes a token; its hash when it existed, null otherwise. */
  async revoke(token: string): Promise<string | null> {
    const tokenHash = hashToken(token);
    const result = await TokenModel.updateOne({ _id: { $eq: tokenHash } }, { $set: { revokedAt: new Date() } });
    return result.matchedCount === 1 ? tokenHash : null;
  }

  /** A token's record by its hash; null when unknown. */
  find(tokenHash: string): Promise<TokenRecord | null> {
    return TokenModel.findById(tokenHash)
      .select({ storeId: 1, livemode: 1, expiresAt: 1, revokedAt: 1 })
      .lean<TokenRecord>()
      .exec();
  }
}
