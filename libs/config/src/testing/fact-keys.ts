import { generateKeyPairSync } from 'node:crypto';

/**
 * A fresh Ed25519 pair in the forms the fact key settings take, set in this process's environment
 * as every deployment sets them: a unit test of a service's config module imports this first,
 * since that module loads the process's environment when it is imported.
 */
const pair = generateKeyPairSync('ed25519');
export const testFactKeys = {
  FACT_SIGNING_KEY: pair.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
  PIX_FACTS_PUBLIC_KEYS: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  PAYMENT_FACTS_PUBLIC_KEYS: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
};
Object.assign(process.env, testFactKeys);
