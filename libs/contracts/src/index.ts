export * from './errors';
export * from './money';
export * from './statuses';
export * from './payment';
export * from './events';
export * from './subjects';
export * from './rpc';
export * from './pix';
