export * from './layout';
export * from './local-secrets';
export * from './nats-access';
export * from './nats-cluster';
export * from './postgres';
export * from './processes';
export * from './stack';
