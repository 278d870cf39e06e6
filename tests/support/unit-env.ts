import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * The unit layer's environment. A service's config module reads process.env when imported, and the
 * settings that guard a door have no default, so a unit test importing one (its schema's own test)
 * would see that service refuse to start. Those tests parse environments of their own; this only
 * lets the module load, with throwaway values, never over a value already set.
 */
const DOOR_SECRETS: Record<string, string> = {
  DASHBOARD_SESSION_SECRET: randomBytes(32).toString('base64url'),
  SECRETS_KEYS: `unit:${randomBytes(32).toString('base64')}`,
};

/**
 * The adapter's PSP connection has no default either (its PSP, credentials and certificates are a
 * deployment's): placeholders its config module accepts, naming no file it would read.
 */
const PSP_CONNECTION: Record<string, string> = {
  PIX_API_URL: 'https://psp.unit.invalid/v2',
  PIX_CLIENT_ID: 'unit',
  PIX_CLIENT_SECRET: randomBytes(24).toString('base64url'),
  PIX_RECEIVER_KEY: 'recebimentos@unit.invalid',
  PIX_TLS_CERT_FILE: '/unit/client.crt',
  PIX_TLS_KEY_FILE: '/unit/client.key',
  PIX_TLS_CA_FILE: '/unit/psp-ca.crt',
  CALLBACK_TLS_CERT_FILE: '/unit/callback.crt',
  CALLBACK_TLS_KEY_FILE: '/unit/callback.key',
  CALLBACK_CLIENT_CA_FILE: '/unit/callback-ca.crt',
  PSP_CALLBACK_PINS: 'cn:psp.unit.invalid',
  PSP_BACKOFFICE_URL: 'http://psp.unit.invalid:8082',
};

/**
 * A fresh Ed25519 pair in the forms the fact key settings take (one pair plays every producer), for
 * the config modules that require them and for the tests of those settings.
 */
const pair = generateKeyPairSync('ed25519');
export const unitFactKeys = {
  FACT_SIGNING_KEY: pair.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
  PIX_FACTS_PUBLIC_KEYS: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  PAYMENT_FACTS_PUBLIC_KEYS: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
};

for (const [name, value] of Object.entries({ ...DOOR_SECRETS, ...PSP_CONNECTION, ...unitFactKeys }))
  process.env[name] ??= value;
