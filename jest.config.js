/**
 * The monorepo's tests in three layers (jest projects), run together by `npx jest` / `make test`:
 *  - unit: pure code beside its source (`src/**\/*.test.ts`): no stack, no global setup, seconds
 *    (`make test-unit`, or `npx jest --selectProjects unit`);
 *  - service: one service's (or lib's) code against real NATS and the database (tests/service);
 *  - system: the platform as a black box over HTTP and NATS (every other folder of tests/; eslint
 *    forbids these to import a service's src).
 * The shared stack (global setup) starts only when a service or system test is selected.
 */

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

/** What every layer shares: how TypeScript is run and how workspace packages resolve. */
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleNameMapper: {
    '^@pix/devstack$': '<rootDir>/tools/devstack/src',
    '^@pix/([a-z-]+)$': '<rootDir>/libs/$1/src',
  },
};

/**
 * One whole stack for the run (tests/support/global-setup.ts). Both layers name the same module,
 * and jest runs a global setup module once however many projects name it.
 */
const sharedStack = {
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
};

const CHAOS = '<rootDir>/tests/e2e/chaos.test.ts';
const COMPOSE = '<rootDir>/tests/compose/';
const K8S = '<rootDir>/tests/k8s/';

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/tools'],
      testMatch: ['**/src/**/*.test.ts'],
      setupFiles: ['<rootDir>/tests/support/unit-env.ts'],
    },
    {
      ...common,
      ...sharedStack,
      displayName: 'service',
      roots: ['<rootDir>/tests/service'],
      testMatch: ['**/*.test.ts'],
    },
    {
      ...common,
      ...sharedStack,
      displayName: 'system',
      roots: ['<rootDir>/tests'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/service/', CHAOS, COMPOSE, K8S],
    },
    {
      // The chaos test, run by itself after the others (make test), so that it measures recovery
      // under its own load only; a system test in every other respect.
      ...common,
      ...sharedStack,
      displayName: 'chaos',
      roots: ['<rootDir>/tests/e2e'],
      testMatch: [CHAOS],
    },
    {
      // The compose stack in containers (make compose-test, through scripts/compose-test.sh): it
      // starts its own stack, so no shared one.
      ...common,
      displayName: 'compose',
      roots: ['<rootDir>/tests/compose'],
      testMatch: ['**/*.test.ts'],
    },
    {
      // The small-node profile on a real one-node cluster (make k8s-test, through scripts/k8s/test.sh,
      // which builds and starts the cluster and applies the manifests): no shared stack.
      ...common,
      displayName: 'k8s',
      roots: ['<rootDir>/tests/k8s'],
      testMatch: ['**/*.test.ts'],
    },
  ],
  testTimeout: 60_000,
  // The stacks are child processes that global teardown stops; a socket a failed test left open
  // must not keep CI waiting after every result is in.
  forceExit: true,
  reporters: ['default', '<rootDir>/tests/support/summary-reporter.js'],
};
