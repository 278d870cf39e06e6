export * from './service';
export * from './readiness';
export * from './periodic';
export * from './connections';
export * from './http-server';
export * from './database-metrics';
export * from './retention';
