/** One jest run for the whole monorepo: unit tests beside the code, integration and e2e in tests/. */

// got and its helpers ship only as ES modules; jest on Node 20 runs CommonJS, so they are compiled.
const esmOnly = [
  'got',
  '@sindresorhus/is',
  'byte-counter',
  'cacheable-lookup',
  'cacheable-request',
  'mimic-response',
  'normalize-url',
  'responselike',
  'lowercase-keys',
  'decompress-response',
  'form-data-encoder',
  'p-cancelable',
  'get-stream',
  'is-stream',
  '@sec-ant/readable-stream',
  'keyv',
  '@keyv/serialize',
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/tools', '<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleNameMapper: {
    '^@pix/devstack$': '<rootDir>/tools/devstack/src',
    '^@pix/([a-z-]+)$': '<rootDir>/libs/$1/src',
  },
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  testTimeout: 60_000,
  // The stacks are child processes that global teardown stops; a socket a failed test left open
  // must not keep CI waiting after every result is in.
  forceExit: true,
  reporters: ['default', '<rootDir>/tests/support/summary-reporter.js'],
};
