import { App, Chart, YamlOutputType } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import * as kplus from 'cdk8s-plus-33';
import { certificateIssuer } from './certificates';
import { addLocalEngine } from './local-engine';
import { addMongo, SERVICE_LOGINS } from './mongodb';
import { addMonitoring } from './monitoring';
import { addNats } from './nats';
import { addNetworkPolicies } from './network-policies';
import { addCallbackRoutes } from './psp-connection';
import { addPspSimulator, simulatorLogin } from './psp-simulator';
import { labelsOf } from './services';
import type { Settings } from './settings';
import { addServices } from './workloads';

/**
 * The whole platform, one file per concern. File names start with a number because
 * `kubectl apply -f k8s/dist/` applies them in name order and the namespace must come first.
 */
export function buildApp(settings: Settings, outdir: string): App {
  const app = new App({ outdir, yamlOutputType: YamlOutputType.FILE_PER_CHART, outputFileExtension: '.yaml' });
  const inNamespace = { namespace: settings.namespace, disableResourceNameHashes: true };

  const base = new Chart(app, '00-namespace', { disableResourceNameHashes: true });
  new k8s.KubeNamespace(base, 'namespace', { metadata: { name: settings.namespace, labels: labelsOf('pix') } });

  const backing = new Chart(app, '10-backing', inNamespace);
  // One source of the in-cluster servers' certificates, for NATS and MongoDB alike.
  const issuer = certificateIssuer(backing, settings);
  if (settings.nats.inCluster) addNats(backing, { ...settings, nats: settings.nats }, issuer);
  if (settings.mongodb.inCluster && settings.mongodb.engine === 'local') {
    addLocalEngine(backing, settings, settings.mongodb.storage);
  } else if (settings.mongodb.inCluster) {
    const logins = [...SERVICE_LOGINS, ...(settings.psp.simulator.enabled ? [simulatorLogin()] : [])];
    addMongo(backing, settings.namespace, settings.mongodb.replicas, settings.mongodb.storage, issuer, logins);
  }

  const services = new Chart(app, '20-services', inNamespace);
  const exposed = addServices(services, settings);
  const gateway = exposed.get('gateway')!;
  new kplus.Ingress(services, 'gateway-ingress', {
    metadata: { name: 'gateway', labels: labelsOf('gateway') },
    className: settings.ingress.className,
    rules: [
      {
        host: settings.publicHost,
        path: '/',
        pathType: kplus.HttpIngressPathType.PREFIX,
        backend: kplus.IngressBackend.fromService(gateway, { port: 8080 }),
      },
    ],
    tls: [
      {
        hosts: [settings.publicHost],
        secret: kplus.Secret.fromSecretName(services, 'gateway-tls', settings.ingress.tlsSecretName),
      },
    ],
  });

  addPspSimulator(services, settings);
  addCallbackRoutes(services, settings);

  addNetworkPolicies(new Chart(app, '30-network', inNamespace), settings);
  addMonitoring(new Chart(app, '40-monitoring', inNamespace), settings);
  return app;
}
