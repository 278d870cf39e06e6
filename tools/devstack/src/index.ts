export * from './layout';
export * from './processes';
export * from './stack';
