export * from './service';
export * from './periodic';
