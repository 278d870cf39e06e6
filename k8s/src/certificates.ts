import { ApiObject, type Chart } from 'cdk8s';
import { labelsOf } from './services';
import type { Settings } from './settings';

/** cert-manager's issuer a Certificate names. */
export interface IssuerRef {
  kind: 'Issuer' | 'ClusterIssuer';
  name: string;
}

/** The CA of the namespace's own, when the settings name no issuer: its Issuer and the Secret of its key. */
export const NAMESPACE_CA = 'pix-ca';

/** Certificates for servers inside the cluster, and for their peers (NATS routes verify each other). */
const LIFETIME = '2160h'; // 90 days
const RENEW_BEFORE = '720h'; // 30 days

/**
 * Where the in-cluster servers' certificates come from: the issuer the settings name, or else a CA
 * of the namespace's own (a self-signed root issues one CA certificate, kept in the Secret pix-ca,
 * whose Issuer signs the servers'). Nothing without cert-manager: the Secrets are made by hand.
 */
export function certificateIssuer(chart: Chart, settings: Settings): IssuerRef | undefined {
  if (!settings.tls.certManager) return undefined;
  if (settings.tls.issuer) return settings.tls.issuer;
  const labels = labelsOf('pix');
  const root = `${NAMESPACE_CA}-root`;
  new ApiObject(chart, 'ca-root-issuer', {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Issuer',
    metadata: { name: root, labels },
    spec: { selfSigned: {} },
  });
  new ApiObject(chart, 'ca-certificate', {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name: NAMESPACE_CA, labels },
    spec: {
      isCA: true,
      commonName: NAMESPACE_CA,
      secretName: NAMESPACE_CA,
      duration: '87600h', // 10 years: replacing it means reissuing every server certificate
      privateKey: { algorithm: 'ECDSA', size: 256 },
      issuerRef: { kind: 'Issuer', name: root },
    },
  });
  new ApiObject(chart, 'ca-issuer', {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Issuer',
    metadata: { name: NAMESPACE_CA, labels },
    spec: { ca: { secretName: NAMESPACE_CA } },
  });
  return { kind: 'Issuer', name: NAMESPACE_CA };
}

/**
 * A server's certificate and key in the Secret `secretName` (tls.crt, tls.key, and the issuer's
 * ca.crt that its clients verify it with), renewed by cert-manager before it expires.
 */
export function serverCertificate(
  chart: Chart,
  issuer: IssuerRef,
  options: { name: string; secretName: string; dnsNames: string[]; ipAddresses?: string[] },
): void {
  new ApiObject(chart, `${options.name}-certificate`, {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name: options.name, labels: labelsOf(options.name) },
    spec: {
      secretName: options.secretName,
      dnsNames: options.dnsNames,
      ...(options.ipAddresses && { ipAddresses: options.ipAddresses }),
      duration: LIFETIME,
      renewBefore: RENEW_BEFORE,
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      // Members of a cluster or replica set present theirs to each other too.
      usages: ['server auth', 'client auth', 'digital signature', 'key encipherment'],
      issuerRef: issuer,
    },
  });
}
