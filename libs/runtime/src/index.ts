export * from './service';
export * from './readiness';
