export * from './connection';
export * from './headers';
export * from './rpc';
export * from './setup-retry';
export * from './jetstream';
export * from './stream-follower';
export * from './transient';
