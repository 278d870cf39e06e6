import { ApiObject, type Chart } from 'cdk8s';
import { labelsOf } from './services';

/**
 * The platform's own certificate authority, run by cert-manager (https://cert-manager.io): a
 * self-signed issuer makes the CA certificate (Secret pix-ca), and the CA issuer signs the servers'
 * certificates with it. Each server's Secret holds tls.crt, tls.key and ca.crt; a client mounts
 * ca.crt alone. Clusters without cert-manager make the same Secrets by hand (docs/deploy.md).
 */
export const CA_ISSUER = 'pix-ca';
const CERT_MANAGER = 'cert-manager.io/v1';

export function addCertificateAuthority(chart: Chart): void {
  const labels = labelsOf('pix');
  new ApiObject(chart, 'selfsigned-issuer', {
    apiVersion: CERT_MANAGER,
    kind: 'Issuer',
    metadata: { name: 'pix-selfsigned', labels },
    spec: { selfSigned: {} },
  });
  new ApiObject(chart, 'ca-certificate', {
    apiVersion: CERT_MANAGER,
    kind: 'Certificate',
    metadata: { name: CA_ISSUER, labels },
    spec: {
      isCA: true,
      commonName: 'pix platform CA',
      secretName: CA_ISSUER,
      duration: '87600h',
      privateKey: { algorithm: 'ECDSA', size: 256 },
      issuerRef: { name: 'pix-selfsigned', kind: 'Issuer', group: 'cert-manager.io' },
    },
  });
  new ApiObject(chart, 'ca-issuer', {
    apiVersion: CERT_MANAGER,
    kind: 'Issuer',
    metadata: { name: CA_ISSUER, labels },
    spec: { ca: { secretName: CA_ISSUER } },
  });
}

/** A server certificate signed by the platform's CA, renewed by cert-manager, in Secret `secretName`. */
export function addServerCertificate(
  chart: Chart,
  name: string,
  secretName: string,
  dnsNames: string[],
  component: string,
): void {
  new ApiObject(chart, `${name}-certificate`, {
    apiVersion: CERT_MANAGER,
    kind: 'Certificate',
    metadata: { name, labels: labelsOf(component) },
    spec: {
      secretName,
      dnsNames,
      ipAddresses: ['127.0.0.1'],
      duration: '2160h',
      renewBefore: '360h',
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      // Members of a replica set present theirs to each other too.
      usages: ['server auth', 'client auth', 'digital signature', 'key encipherment'],
      issuerRef: { name: CA_ISSUER, kind: 'Issuer', group: 'cert-manager.io' },
    },
  });
}
