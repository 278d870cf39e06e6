export * from './http-observability';
export * from './logger';
export * from './metrics';
export * from './ops-server';
export * from './request-id';
export * from './tracing';
