import { checkPins, ConnectionPins, parsePins } from './callback-pins';

/**
 * Two self-signed certificates made with openssl (EC P-256): the PSP's, with its name in the subject
 * and two DNS names (one a wildcard), and a merchant's. Their pins were printed by the recipe
 * docs/security.md gives (openssl x509 -pubkey | openssl pkey -pubin -outform der | dgst -sha256 | base64).
 */
const PSP = `-----BEGIN CERTIFICATE-----
MIIB+zCCAaGgAwIBAgIUYGI6IqBiRsrEuQbMlgcGHsFIdMEwCgYIKoZIzj0EAwIw
NjEUMBIGA1UECgwLUFNQIEV4ZW1wbG8xHjAcBgNVBAMMFWNhbGxiYWNrcy5wc3Au
ZXhhbXBsZTAgFw0yNjExMjgxMDM1MDhaGA8yMTI2MTEwNDEwMzUwOFowNjEUMBIG
A1UECgwLUFNQIEV4ZW1wbG8xHjAcBgNVBAMMFWNhbGxiYWNrcy5wc3AuZXhhbXBs
ZTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABD+UjmAgTGyIIHV3RjO6g7HrXLvW
hI7zArPe+QbD8Nqb2C9POK3JjMaRvknqfcrIBmW+Nq+CBUrR2uPAj8pSpnijgYow
gYcwHQYDVR0OBBYEFBjFm0HvfP7AF7oRY/UpkNALSXDRMB8GA1UdIwQYMBaAFBjF
m0HvfP7AF7oRY/UpkNALSXDRMA8GA1UdEwEB/wQFMAMBAf8wNAYDVR0RBC0wK4IV
Y2FsbGJhY2tzLnBzcC5leGFtcGxlghIqLndpbGQucHNwLmV4YW1wbGUwCgYIKoZI
zj0EAwIDSAAwRQIhAImzI0ZLocqlmSXxAQKN7QrHzNr79PNlUSdzfYjdg70+AiAY
ZUPeNs8Yv2vlsFEAw49F9sPAqjgJhCDBVuV8QCRsYQ==
-----END CERTIFICATE-----`;
const PSP_PIN = 'sha256/qlujXETChjRn/MSVpgTYVREGbIQA4AdtWDl5mPn6CKg=';
const MERCHANT = `-----BEGIN CERTIFICATE-----
MIIBjTCCATOgAwIBAgIUXboM6UIJg1ZSdlvFOyCZyGUG1CAwCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQbWVyY2hhbnQuZXhhbXBsZTAgFw0yNjExMjgxMDM1MDhaGA8y
MTI2MTEwNDEwMzUwOFowGzEZMBcGA1UEAwwQbWVyY2hhbnQuZXhhbXBsZTBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABNxrBrmqCyH6MG0wbdYAMrQ+wZbv0sZACv5t
tDn1md09wG+ih14Fzzlh+CmlXBkjmMB3JSLwknj2DsxfSvGeXb6jUzBRMB0GA1Ud
DgQWBBT6ncw1PNeL2GjKHCUH+hmLZCi0NDAfBgNVHSMEGDAWgBT6ncw1PNeL2GjK
HCUH+hmLZCi0NDAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIBBb
0PfuRdGs0JznY4GQfPBY1kPerJQjgd7fah7de59NAiEAnDIQMh74aMsodq3thtBo
7rK1LsTLu196eoSvX+rcByo=
-----END CERTIFICATE-----`;
const MERCHANT_PIN = 'sha256/vWdVRPR62rZhuYwoZvl3YZ08uJN06mhG2Uo1rSQ0Tc8=';

/** A certificate as the TLS socket hands it (DER). */
function der(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
}

function pins(text: string) {
  const parsed = parsePins(text);
  if (!('pins' in parsed)) throw new Error(`invalid pins: ${parsed.invalid.join(', ')}`);
  return parsed.pins;
}

describe('callback pins', () => {
  it("match the PSP's certificate by its key's SHA-256, and not a merchant's of the same CA", () => {
    expect(checkPins(der(PSP), pins(PSP_PIN))).toMatchObject({ pinned: true, spki: PSP_PIN });
    expect(checkPins(der(MERCHANT), pins(PSP_PIN))).toEqual({
      pinned: false,
      spki: MERCHANT_PIN,
      subject: 'CN=merchant.example',
      issuer: 'CN=merchant.example',
    });
  });

  it('match a DNS name of the certificate exactly, a wildcard in it matching nothing', () => {
    expect(checkPins(der(PSP), pins('dns:callbacks.psp.example')).pinned).toBe(true);
    expect(checkPins(der(PSP), pins('dns:CALLBACKS.psp.example')).pinned).toBe(true);
    expect(checkPins(der(PSP), pins('dns:other.wild.psp.example')).pinned).toBe(false);
    expect(checkPins(der(PSP), pins('dns:psp.example')).pinned).toBe(false);
    expect(checkPins(der(MERCHANT), pins('dns:callbacks.psp.example')).pinned).toBe(false);
  });

  it("match the subject's common name exactly", () => {
    expect(checkPins(der(PSP), pins('cn:callbacks.psp.example')).pinned).toBe(true);
    expect(checkPins(der(PSP), pins('cn:PSP Exemplo')).pinned).toBe(false);
    expect(checkPins(der(MERCHANT), pins('cn:callbacks.psp.example')).pinned).toBe(false);
  });

  it('match when any pin of the list does (two keys while the PSP renews its certificate)', () => {
    expect(checkPins(der(MERCHANT), pins(`${PSP_PIN}, ${MERCHANT_PIN}`)).pinned).toBe(true);
    expect(checkPins(der(PSP), [])).toMatchObject({ pinned: false });
  });

  it('read a comma list, and name every entry that is no pin', () => {
    expect(parsePins(` ${PSP_PIN} ,dns:a.example,, cn:PSP S.A. `)).toEqual({
      pins: [
        { kind: 'sha256', value: PSP_PIN.slice('sha256/'.length) },
        { kind: 'dns', value: 'a.example' },
        { kind: 'cn', value: 'PSP S.A.' },
      ],
    });
    expect(parsePins('sha256/abc=, pin-sha256="x", dns:, cn:ok, sha1/AAAA')).toEqual({
      invalid: ['sha256/abc=', 'pin-sha256="x"', 'dns:', 'sha1/AAAA'],
    });
  });

  it("judge a connection's certificate once, whatever it carries, and each connection on its own", () => {
    // A TLS socket as the judgement sees it, counting the reads of its certificate.
    const connection = (pem: string) => {
      const socket = {
        reads: 0,
        getPeerCertificate() {
          socket.reads++;
          return { raw: der(pem) };
        },
      };
      return socket;
    };
    const judge = new ConnectionPins(pins(PSP_PIN));
    const psp = connection(PSP);
    const merchant = connection(MERCHANT);
    for (let callback = 0; callback < 3; callback++) {
      expect(judge.check(psp).pinned).toBe(true);
      expect(judge.check(merchant)).toMatchObject({ pinned: false, spki: MERCHANT_PIN });
    }
    expect([psp.reads, merchant.reads]).toEqual([1, 1]);
  });
});
