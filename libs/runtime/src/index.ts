/** A service's life: start-up, connections, background loops, retention, graceful shutdown. */
export { Service, type ServiceOptions, type CommonSettings } from './service';
export { connectDatabase, connectMessaging } from './connections';
export { closeHttpServer } from './http-server';
export { Periodic } from './periodic';
export { isDuplicateKey } from './duplicate-key';
export { sha256Hex, sameSecret } from './secrets';
export {
  probeRetention,
  declareExpiry,
  expiryFields,
  ExpiryPurge,
  type RetentionBranch,
  type ExpiryFields,
} from './retention';
