import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { JetStreamClient, JetStreamPublishOptions } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs, type Payload } from '@nats-io/transport-node';
import { FactHeaders, isSignedFactSubject, type FactRefusalReason } from '@pix/contracts';

/**
 * Signed facts (docs/security.md: signed facts): the producer of a money-moving fact signs it with
 * its own Ed25519 key, whoever applies it checks the signature against the producer's public keys.
 * What is signed makes the fact: its subject (a "paid" cannot become a "refunded"), its message id
 * (a fact cannot be stored again under another id, past JetStream's duplicate window) and the exact
 * payload bytes, behind a label of the scheme's version. The key id travels with the signature, so
 * a verifier holds the old and the new key while a rotation lasts.
 */
const SCHEME = 'pix-fact/1';
/** The message id header JetStream stores with a message published with a msgID. */
const MSG_ID_HEADER = 'Nats-Msg-Id';

function signedBytes(subject: string, msgId: string, payload: Uint8Array): Buffer {
  // Neither a subject nor a header value may hold a line break: the layout is unambiguous.
  return Buffer.concat([Buffer.from(`${SCHEME}\n${subject}\n${msgId}\n`), payload]);
}

/** A public key's id: the first 8 bytes of the SHA-256 of its SPKI DER, base64url (11 characters). */
export function factKeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return createHash('sha256').update(der).digest().subarray(0, 8).toString('base64url');
}

/** Signs the facts of one producing identity. */
export class FactSigner {
  readonly keyId: string;

  constructor(private readonly privateKey: KeyObject) {
    this.keyId = factKeyId(createPublicKey(privateKey));
  }

  /** Sets the signature headers of a fact on `subject` with message id `msgId` and these payload bytes. */
  sign(hdrs: MsgHdrs, subject: string, msgId: string, payload: Uint8Array): MsgHdrs {
    hdrs.set(FactHeaders.keyId, this.keyId);
    hdrs.set(
      FactHeaders.signature,
      sign(null, signedBytes(subject, msgId, payload), this.privateKey).toString('base64url'),
    );
    return hdrs;
  }
}

/** What a verifier says of a fact: genuine (and under which key), or why not. */
export type FactCheck =
  { genuine: true; keyId: string } | { genuine: false; reason: FactRefusalReason; keyId: string | null };

/** What a fact is, as a consumer holds it (a JetStream message). */
export interface ReceivedFact {
  subject: string;
  headers?: Pick<MsgHdrs, 'get'>;
  data: Uint8Array;
}

/** Checks the facts of one producing identity against the public keys it may sign with. */
export class FactVerifier {
  private readonly keys: Map<string, KeyObject>;

  constructor(publicKeys: readonly KeyObject[]) {
    this.keys = new Map(publicKeys.map((key) => [factKeyId(key), key]));
  }

  check(fact: ReceivedFact): FactCheck {
    const keyId = fact.headers?.get(FactHeaders.keyId) || null;
    const signature = fact.headers?.get(FactHeaders.signature);
    const msgId = fact.headers?.get(MSG_ID_HEADER);
    if (!keyId || !signature || !msgId) return { genuine: false, reason: 'unsigned', keyId };
    const key = this.keys.get(keyId);
    if (!key) return { genuine: false, reason: 'unknown_key', keyId };
    const valid = verify(null, signedBytes(fact.subject, msgId, fact.data), key, Buffer.from(signature, 'base64url'));
    return valid ? { genuine: true, keyId } : { genuine: false, reason: 'bad_signature', keyId };
  }
}

const encoder = new TextEncoder();

/**
 * The JetStream client a producer publishes its facts through: every publish on a signed-fact
 * subject (contracts' SIGNED_FACT_SUBJECTS) leaves signed, whichever module of the service makes
 * it, so there is one place that signs. A fact needs its message id, which the signature binds.
 * Anything else (its schedules, its commands) passes through unchanged.
 */
export function signingJetStream(js: JetStreamClient, signer: FactSigner): JetStreamClient {
  const publish = (subject: string, payload?: Payload, options?: Partial<JetStreamPublishOptions>) => {
    if (!isSignedFactSubject(subject)) return js.publish(subject, payload, options);
    const msgId = options?.msgID;
    if (!msgId) throw new Error(`a fact on ${subject} needs a message id to be signed`);
    const bytes = typeof payload === 'string' ? encoder.encode(payload) : (payload ?? new Uint8Array());
    const hdrs = signer.sign(options.headers ?? natsHeaders(), subject, msgId, bytes);
    return js.publish(subject, bytes, { ...options, headers: hdrs });
  };
  return new Proxy(js, {
    get: (target, property) => {
      if (property === 'publish') return publish;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
