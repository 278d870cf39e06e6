import { generateKeyPairSync } from 'node:crypto';

/**
 * A fresh Ed25519 pair under the names a deployment gives it (compose: ADAPTER_FACT_SIGNING_KEY and
 * PIX_FACTS_PUBLIC_KEYS, say), in the forms the fact key settings take: base64 PKCS#8 DER, base64 SPKI DER.
 */
export function factPairAs(privateName: string, publicName: string): Record<string, string> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    [privateName]: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    [publicName]: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}
