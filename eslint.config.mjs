import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.run/**',
      '.tools/**',
      'coverage/**',
      'k8s/dist/**',
      'k8s/build/**',
      'clients/sdk/src/openapi.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Payments' storage lives behind one module: the write protocol (a conditional write and its outbox)
    // is its concern, not a convention each caller must remember.
    files: ['services/payments/src/**/*.ts'],
    ignores: [
      'services/payments/src/payment-store.ts',
      'services/payments/src/balance-store.ts',
      'services/payments/src/statement-check-store.ts',
      'services/payments/src/model.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'mongoose',
              message: 'Only payment-store.ts, balance-store.ts and statement-check-store.ts talk to the database.',
            },
            {
              name: 'mongodb',
              message: 'Only payment-store.ts, balance-store.ts and statement-check-store.ts talk to the database.',
            },
          ],
          patterns: [
            { group: ['./model', '../model'], allowTypeImports: true, message: 'Use PaymentStore (payment-store.ts).' },
          ],
        },
      ],
    },
  },
  {
    // The gateway's stores, tokens and Idempotency-Keys are behind one folder: only it talks to the database.
    files: ['services/gateway/src/**/*.ts'],
    ignores: ['services/gateway/src/storage/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'mongoose', message: 'The gateway reaches the database through GatewayStorage (./storage) only.' },
            { name: 'mongodb', message: 'The gateway reaches the database through GatewayStorage (./storage) only.' },
          ],
          patterns: [
            {
              group: ['**/storage/records'],
              message: "The models are the storage folder's own: use GatewayStorage.",
            },
          ],
        },
      ],
    },
  },
  {
    // The adapter's database: its reconciliation cursor; nothing else.
    files: ['services/pix-provider-adapter/src/**/*.ts'],
    ignores: ['services/pix-provider-adapter/src/reconciliation-cursor.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'mongoose', message: 'Only reconciliation-cursor.ts talks to the database.' },
            { name: 'mongodb', message: 'Only reconciliation-cursor.ts talks to the database.' },
          ],
        },
      ],
    },
  },
  {
    // The PSP's database: its books (charges, Pix, refunds, infractions) and its callback registrations; nothing else.
    files: ['services/psp-simulator/src/**/*.ts'],
    ignores: [
      'services/psp-simulator/src/books/books.ts',
      'services/psp-simulator/src/books/infractions.ts',
      'services/psp-simulator/src/webhook-registrations.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'mongoose',
              message: 'Only the books (books.ts, infractions.ts) and webhook-registrations.ts talk to the database.',
            },
            {
              name: 'mongodb',
              message: 'Only the books (books.ts, infractions.ts) and webhook-registrations.ts talk to the database.',
            },
          ],
        },
      ],
    },
  },
  {
    // The dispatcher's delivery log is behind one folder: only it talks to the database.
    files: ['services/webhook-dispatcher/src/**/*.ts'],
    ignores: ['services/webhook-dispatcher/src/delivery-log/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'mongoose', message: 'The delivery log is reached through ./delivery-log only.' },
            { name: 'mongodb', message: 'The delivery log is reached through ./delivery-log only.' },
          ],
        },
      ],
    },
  },
  {
    // Services raise domain error codes; only the edges (the gateway's HTTP answers, the admin CLI)
    // turn a code into a status and the spec's message.
    files: [
      'services/payments/src/**/*.ts',
      'services/pix-provider-adapter/src/**/*.ts',
      'services/webhook-dispatcher/src/**/*.ts',
      'services/psp-simulator/src/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@pix/contracts',
              importNames: ['ErrorMessages', 'SandboxMessages', 'DomainErrorAnswers'],
              message: 'Raise a DomainError code; the gateway maps it to a status and the message.',
            },
          ],
        },
      ],
    },
  },
  {
    // The system layer tests the platform as a black box, over HTTP and NATS: what a service does
    // inside is the service layer's business (tests/service).
    files: ['tests/**/*.ts'],
    ignores: ['tests/service/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/services/*/src', '**/services/*/src/**'],
              message: 'System tests reach a service over HTTP or NATS only; a test of its code goes in tests/service.',
            },
          ],
        },
      ],
    },
  },
);
