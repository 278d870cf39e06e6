/**
 * A service's life (start-up, connections, background loops, graceful shutdown) and what
 * every service's storage and secrets need (the duplicate-key check, digests, constant-time comparison).
 */
export { Service } from './service';
export {
  connectDatabase,
  connectMessaging,
  DATABASE_CLIENT_OPTIONS,
  type DatabaseSettings,
  type NatsSettings,
} from './connections';
export { syncIndexes } from './indexes';
export { driverCollection } from './driver-collection';
export { MonitorWatchdog } from './database-watchdog';
export { POOL_UPKEEP_MS } from './pool-upkeep';
export { closeHttpServer } from './http-server';
export { Periodic } from './periodic';
export { isDuplicateKey } from './duplicate-key';
export { sha256Hex, sameSecret } from './secrets';
export { parseSealingKeys, RetiredSealingKey, Sealer, type SealedBinding, type SealingKey } from './sealing';
export { FactGate, RefusedFacts } from './refused-facts';
export { listen, outlastClients, readPem, type ServerMutualTls } from './tls';
