import type { Logger } from '@pix/observability';
import { syncIndexes, type Sealer } from '@pix/runtime';
import { IdempotencyKeys } from './idempotency-keys';
import { IdempotencyKeyModel, StoreModel, TokenModel } from './records';
import { Stores } from './stores';
import { Tokens } from './tokens';

export {
  IDEMPOTENCY_WINDOW_MS,
  isValidIdempotencyKey,
  type Claim,
  type IdempotencyKeys,
  type IdempotentRequest,
} from './idempotency-keys';
export { SECRET_ROTATION_OVERLAP_MS, type Stores, type UnreadableSecret } from './stores';
export { hashToken, StoreNotFound, type TokenRecord, type Tokens } from './tokens';

/**
 * The gateway's storage, the only part of it that touches the database (eslint keeps mongoose out
 * of the rest): stores, their tokens and the Idempotency-Keys of creates. Opened once in main.ts and
 * handed to what needs it; every query is served by an index of its schema
 * (tests/service/hot-queries-explain.test.ts).
 */
export class GatewayStorage {
  readonly tokens = new Tokens();
  readonly stores: Stores;
  readonly idempotencyKeys = new IdempotencyKeys();

  /** `sealer` seals the stores' webhook secrets at rest (SECRETS_KEYS). */
  constructor(sealer: Sealer) {
    this.stores = new Stores(this.tokens, sealer);
  }

  /** Creates the schemas' indexes (syncIndexes keeps them as declared on every start). */
  static async open(sealer: Sealer, logger?: Logger): Promise<GatewayStorage> {
    await syncIndexes([StoreModel, TokenModel, IdempotencyKeyModel], logger);
    return new GatewayStorage(sealer);
  }
}
