import { createHash, X509Certificate } from 'node:crypto';

/**
 * How the PSP's client certificate is recognised on the callback endpoint, beyond its chain to the
 * PSP's CA (which also issues the PSP's merchants their certificates): its key, or a name only the
 * PSP's certificate carries. Written in PSP_CALLBACK_PINS, comma-separated, any one matching:
 * `sha256/<base64>`, the SHA-256 of the certificate's SubjectPublicKeyInfo (HPKP's pin; `openssl
 * x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
 * prints it); `dns:<name>`, a DNS name among its subject alternative names, exactly (a wildcard in
 * the certificate does not match); `cn:<name>`, its subject's common name, exactly.
 */
export interface CallbackPin {
  kind: 'sha256' | 'dns' | 'cn';
  value: string;
}

const PIN = /^(sha256\/|dns:|cn:)(.+)$/;
const SPKI_DIGEST = /^[A-Za-z0-9+/]{43}=$/;
const KINDS = { 'sha256/': 'sha256', 'dns:': 'dns', 'cn:': 'cn' } as const;

/** The pins a PSP_CALLBACK_PINS value lists, or the entries that are none. */
export function parsePins(text: string): { pins: CallbackPin[] } | { invalid: string[] } {
  const pins: CallbackPin[] = [];
  const invalid: string[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const [, prefix, value = ''] = PIN.exec(entry) ?? [];
    const kind = prefix && KINDS[prefix as keyof typeof KINDS];
    if (!kind || (kind === 'sha256' && !SPKI_DIGEST.test(value))) invalid.push(entry);
    else pins.push({ kind, value });
  }
  return invalid.length > 0 ? { invalid } : { pins };
}

/** A client certificate as the callback endpoint judged it: pinned or not, and what to log of it (public parts only). */
export interface PinCheck {
  pinned: boolean;
  /** Its own `sha256/…` pin, what an operator adds for a PSP's renewed certificate. */
  spki: string;
  subject: string;
  issuer: string;
}

/** Checks a client certificate (DER, as the TLS socket hands it) against the pins. */
export function checkPins(raw: Buffer, pins: readonly CallbackPin[]): PinCheck {
  const certificate = new X509Certificate(raw);
  const spki = `sha256/${createHash('sha256')
    .update(certificate.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;
  const commonNames = certificate.subject
    .split('\n')
    .filter((line) => line.startsWith('CN='))
    .map((line) => line.slice('CN='.length));
  const pinned = pins.some((pin) => {
    if (pin.kind === 'sha256') return spki === `sha256/${pin.value}`;
    if (pin.kind === 'cn') return commonNames.includes(pin.value);
    return certificate.checkHost(pin.value, { subject: 'never', wildcards: false }) !== undefined;
  });
  return {
    pinned,
    spki,
    subject: certificate.subject.replace(/\n/g, ', '),
    issuer: certificate.issuer.replace(/\n/g, ', '),
  };
}

/**
 * The pins' judgement of each connection's client certificate, made once however many callbacks
 * the connection carries (a PSP keeps its connections alive): parsing the certificate and hashing
 * its key cost more than the rest of a callback's authentication, and a connection's certificate is
 * the one of its handshake, since the callback server refuses renegotiation (libs/runtime, tls.ts).
 */
export class ConnectionPins {
  private readonly judged = new WeakMap<object, PinCheck>();

  constructor(private readonly pins: readonly CallbackPin[]) {}

  /** `socket`: the callback's TLS socket (what is read of it: its client certificate, DER). */
  check(socket: { getPeerCertificate(): { raw: Buffer } }): PinCheck {
    let judgement = this.judged.get(socket);
    if (!judgement) {
      judgement = checkPins(socket.getPeerCertificate().raw, this.pins);
      this.judged.set(socket, judgement);
    }
    return judgement;
  }
}
