import { generateKeyPairSync } from 'node:crypto';
import type { JetStreamClient, JetStreamPublishOptions } from '@nats-io/jetstream';
import { headers, type MsgHdrs, type Payload } from '@nats-io/transport-node';
import { FactHeaders } from '@pix/contracts';
import { FactSigner, FactVerifier, factKeyId, signingJetStream, type ReceivedFact } from './fact-signing';

const adapter = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const payload = new TextEncoder().encode('{"txid":"t1","endToEndId":"E1","amountCents":2500}');

/** A fact as a consumer receives it: signed by `signer` (unless left unsigned), with its message id. */
function fact(
  options: { signer?: FactSigner; subject?: string; msgId?: string; data?: Uint8Array } = {},
): ReceivedFact & { headers: MsgHdrs } {
  const subject = options.subject ?? 'pix.events.paid';
  const hdrs = headers();
  hdrs.set('Nats-Msg-Id', options.msgId ?? 'paid:E1');
  options.signer?.sign(hdrs, subject, options.msgId ?? 'paid:E1', payload);
  return { subject, headers: hdrs, data: options.data ?? payload };
}

describe('signed facts', () => {
  const signer = new FactSigner(adapter.privateKey);
  const verifier = new FactVerifier([other.publicKey, adapter.publicKey]);

  it('accepts a fact its producer signed, under any key of the set', () => {
    expect(verifier.check(fact({ signer }))).toEqual({ genuine: true, keyId: signer.keyId });
    expect(signer.keyId).toBe(factKeyId(adapter.publicKey));
    expect(signer.keyId).toMatch(/^[A-Za-z0-9_-]{11}$/);
  });

  it('refuses a fact without a signature, or without the message id it binds', () => {
    expect(verifier.check(fact())).toEqual({ genuine: false, reason: 'unsigned', keyId: null });
    const noId = fact({ signer });
    noId.headers.delete('Nats-Msg-Id');
    expect(verifier.check(noId)).toMatchObject({ genuine: false, reason: 'unsigned' });
    expect(verifier.check({ subject: 'pix.events.paid', data: payload })).toMatchObject({ reason: 'unsigned' });
  });

  it('refuses a fact signed by a key it does not hold', () => {
    const stranger = new FactSigner(generateKeyPairSync('ed25519').privateKey);
    expect(verifier.check(fact({ signer: stranger }))).toEqual({
      genuine: false,
      reason: 'unknown_key',
      keyId: stranger.keyId,
    });
  });

  it('refuses a signature claimed under a known key id that the key did not make', () => {
    const forged = fact({ signer: new FactSigner(generateKeyPairSync('ed25519').privateKey) });
    forged.headers.set(FactHeaders.keyId, signer.keyId);
    expect(verifier.check(forged)).toMatchObject({ genuine: false, reason: 'bad_signature' });
  });

  it('binds the subject, the message id and every payload byte', () => {
    const genuine = fact({ signer });
    const moved = { ...genuine, subject: 'pix.events.refunded' };
    expect(verifier.check(moved)).toMatchObject({ reason: 'bad_signature' });
    const renamed = fact({ signer });
    renamed.headers.set('Nats-Msg-Id', 'paid:E2');
    expect(verifier.check(renamed)).toMatchObject({ reason: 'bad_signature' });
    const changed = Uint8Array.from(payload);
    changed[changed.length - 3] = '9'.charCodeAt(0);
    expect(verifier.check({ ...genuine, data: changed })).toMatchObject({ reason: 'bad_signature' });
  });
});

describe('the signing JetStream client', () => {
  const signer = new FactSigner(adapter.privateKey);
  const verifier = new FactVerifier([adapter.publicKey]);
  const published: { subject: string; payload?: Payload; options?: Partial<JetStreamPublishOptions> }[] = [];
  const js = {
    publish: (subject: string, payload?: Payload, options?: Partial<JetStreamPublishOptions>) => {
      published.push({ subject, payload, options });
      return Promise.resolve({ duplicate: false, seq: published.length, stream: 'PIX' });
    },
    apiPrefix: '$JS.API',
  } as unknown as JetStreamClient;
  const signing = signingJetStream(js, signer);
  beforeEach(() => (published.length = 0));

  it('signs a fact it publishes, over the bytes it sends, keeping the headers it was given', async () => {
    const given = headers();
    given.set('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    await signing.publish('pix.events.paid', '{"a":1}', { msgID: 'paid:E1', headers: given });
    const [sent] = published;
    const hdrs = sent?.options?.headers as MsgHdrs;
    expect(hdrs.get('traceparent')).toBe(given.get('traceparent'));
    hdrs.set('Nats-Msg-Id', 'paid:E1');
    const check = verifier.check({ subject: 'pix.events.paid', headers: hdrs, data: sent?.payload as Uint8Array });
    expect(check).toEqual({ genuine: true, keyId: signer.keyId });
  });

  it('refuses to publish a fact without a message id', () => {
    expect(() => signing.publish('payments.events.created', '{}')).toThrow('needs a message id');
  });

  it('leaves what is not a fact as it is, and the rest of the client', async () => {
    await signing.publish('pix.commands.run.refund', '{}', { msgID: 'r1' });
    expect(published[0]?.options?.headers).toBeUndefined();
    expect(published[0]?.payload).toBe('{}');
    expect(signing.apiPrefix).toBe('$JS.API');
  });
});
