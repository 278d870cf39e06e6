import type { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import { MONGO_INIT_COMPONENT } from './mongodb';
import { externalConnections, pspApiPorts } from './psp-connection';
import {
  MONGO_PORT,
  NATS_CLIENT_PORT,
  NATS_CLUSTER_PORT,
  NATS_MONITOR_PORT,
  NATS_PROVISION_COMPONENT,
  OPERATOR_COMPONENT,
  PSP_SIMULATOR,
  SERVICES,
  labelsOf,
  type ServiceSpec,
} from './services';
import type { Settings } from './settings';

/** Ranges that are never the internet: webhooks must not reach the cluster or the cloud's metadata. */
const NON_PUBLIC_RANGES = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '100.64.0.0/10',
  '127.0.0.0/8',
];

type Peer = k8s.NetworkPolicyPeer;
type Port = k8s.NetworkPolicyPort;

const tcp = (port: number): Port => ({ protocol: 'TCP', port: k8s.IntOrString.fromNumber(port) });
const pods = (component: string): Peer => ({ podSelector: { matchLabels: { 'app.kubernetes.io/name': component } } });
const namespace = (name: string): Peer => ({
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } },
});
const cidrs = (list: string[]): Peer[] => list.map((cidr) => ({ ipBlock: { cidr } }));

function policy(chart: Chart, name: string, spec: k8s.NetworkPolicySpec): void {
  new k8s.KubeNetworkPolicy(chart, name, { metadata: { name, labels: labelsOf('pix') }, spec });
}

/**
 * Default deny in both directions, then one allowance per need: the ingress controller reaches the
 * gateway only; every service reaches NATS, and MongoDB when it uses it; the dispatcher reaches the
 * public internet (merchants' webhooks) and nothing private; the adapter reaches each external PSP's
 * API ranges, and each one's callback ranges reach that connection's callback port only (live
 * mode's, 8082; test mode's at a homologation environment, 8081); the PSP simulator is reached by
 * the adapter alone and calls back test mode's port of the adapter alone; the
 * JetStream provisioning Job and the operator's admin CLI pod reach NATS only. On NATS each still
 * proves who it is with its own key, and may only what its identity may.
 */
export function addNetworkPolicies(chart: Chart, settings: Settings): void {
  policy(chart, 'default-deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
  policy(chart, 'allow-dns', {
    podSelector: {},
    policyTypes: ['Egress'],
    egress: [
      {
        to: [{ ...namespace('kube-system'), podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
        ports: [
          { protocol: 'UDP', port: k8s.IntOrString.fromNumber(53) },
          { protocol: 'TCP', port: k8s.IntOrString.fromNumber(53) },
        ],
      },
    ],
  });

  const natsPeers: Peer[] = settings.nats.inCluster ? [pods('nats')] : cidrs(settings.nats.cidrs);
  const mongoPeers: Peer[] = settings.mongodb.inCluster ? [pods('mongodb')] : cidrs(settings.mongodb.cidrs);

  for (const spec of SERVICES) {
    const ingress: k8s.NetworkPolicyIngressRule[] = [
      { from: [namespace(settings.monitoring.namespace)], ports: [tcp(spec.opsPort)] },
    ];
    if (spec.name === 'gateway') {
      ingress.push({ from: [namespace(settings.ingress.controllerNamespace)], ports: [tcp(spec.httpPort!.port)] });
    }
    if (spec.name === 'pix-provider-adapter') {
      for (const { connection, callbackPort } of externalConnections(settings)) {
        if (connection.callbackCidrs.length === 0) continue;
        // Its callback route keeps the PSP's address (externalTrafficPolicy Local): admitted by it.
        ingress.push({ from: cidrs(connection.callbackCidrs), ports: [tcp(callbackPort.port)] });
      }
    }
    if (spec.name === 'pix-provider-adapter' && settings.psp.simulator.enabled) {
      // Test mode's PSP calls back from inside the namespace, at test mode's port.
      ingress.push({ from: [pods(PSP_SIMULATOR.name)], ports: [tcp(spec.httpPort!.port)] });
    }
    policy(chart, spec.name, {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': spec.name } },
      policyTypes: ['Ingress', 'Egress'],
      ingress,
      egress: serviceEgress(spec, settings, natsPeers, mongoPeers),
    });
  }

  if (settings.psp.simulator.enabled) {
    const adapter = SERVICES.find((spec) => spec.name === 'pix-provider-adapter')!;
    const egress: k8s.NetworkPolicyEgressRule[] = [
      { to: mongoPeers, ports: [tcp(MONGO_PORT)] },
      // It calls back the adapter, at test mode's port alone.
      { to: [pods(adapter.name)], ports: [tcp(adapter.httpPort!.port)] },
    ];
    policy(chart, PSP_SIMULATOR.name, {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': PSP_SIMULATOR.name } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        // API Pix and the back office (the payer, for the sandbox routes): the adapter alone.
        { from: [pods(adapter.name)], ports: [tcp(PSP_SIMULATOR.apiPort), tcp(PSP_SIMULATOR.backOfficePort)] },
        { from: [namespace(settings.monitoring.namespace)], ports: [tcp(PSP_SIMULATOR.opsPort)] },
      ],
      egress,
    });
  }

  const natsPort = natsClientPort(settings);
  for (const component of [NATS_PROVISION_COMPONENT, OPERATOR_COMPONENT]) {
    policy(chart, component, {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': component } },
      policyTypes: ['Ingress', 'Egress'],
      egress: [{ to: natsPeers, ports: [tcp(natsPort)] }],
    });
  }

  const clients = [
    ...SERVICES.map((spec) => pods(spec.name)),
    pods(NATS_PROVISION_COMPONENT),
    pods(OPERATOR_COMPONENT),
  ];
  if (settings.nats.inCluster) {
    policy(chart, 'nats', {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'nats' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { from: clients, ports: [tcp(NATS_CLIENT_PORT)] },
        { from: [pods('nats')], ports: [tcp(NATS_CLUSTER_PORT)] },
        { from: [namespace(settings.monitoring.namespace)], ports: [tcp(NATS_MONITOR_PORT)] },
      ],
      egress: [{ to: [pods('nats')], ports: [tcp(NATS_CLUSTER_PORT)] }],
    });
  }
  for (const receiver of settings.webhookReceivers) {
    // A test cluster's merchant endpoint: the dispatcher's deliveries in, nothing out.
    policy(chart, receiver, {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': receiver } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [pods('webhook-dispatcher')] }],
    });
  }
  if (settings.mongodb.inCluster) {
    const mongoClients = SERVICES.filter((spec) => spec.usesMongo).map((spec) => pods(spec.name));
    if (settings.psp.simulator.enabled) mongoClients.push(pods(PSP_SIMULATOR.name));
    policy(chart, 'mongodb', {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'mongodb' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [...mongoClients, pods('mongodb'), pods(MONGO_INIT_COMPONENT)], ports: [tcp(MONGO_PORT)] }],
      egress: [{ to: [pods('mongodb')], ports: [tcp(MONGO_PORT)] }],
    });
    policy(chart, MONGO_INIT_COMPONENT, {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': MONGO_INIT_COMPONENT } },
      policyTypes: ['Egress'],
      egress: [{ to: [pods('mongodb')], ports: [tcp(MONGO_PORT)] }],
    });
  }
}

/** Where clients reach NATS: its client port in the cluster, the managed one's URL's port. */
function natsClientPort(settings: Settings): number {
  return settings.nats.inCluster ? NATS_CLIENT_PORT : Number(new URL(settings.nats.url).port || 4222);
}

function serviceEgress(
  spec: ServiceSpec,
  settings: Settings,
  natsPeers: Peer[],
  mongoPeers: Peer[],
): k8s.NetworkPolicyEgressRule[] {
  const natsPort = natsClientPort(settings);
  const egress: k8s.NetworkPolicyEgressRule[] = [{ to: natsPeers, ports: [tcp(natsPort)] }];
  if (spec.usesMongo) egress.push({ to: mongoPeers, ports: [tcp(MONGO_PORT)] });
  if (spec.name === 'webhook-dispatcher') {
    // Any port: a merchant's webhook URL may name one.
    egress.push({ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: NON_PUBLIC_RANGES } }] });
    if (settings.webhookReceivers.length > 0) egress.push({ to: settings.webhookReceivers.map(pods) });
  }
  if (spec.name === 'pix-provider-adapter') {
    for (const { connection } of externalConnections(settings)) {
      egress.push({ to: cidrs(connection.apiCidrs), ports: pspApiPorts(connection).map(tcp) });
    }
    if (settings.psp.simulator.enabled) {
      const ports = [PSP_SIMULATOR.apiPort, PSP_SIMULATOR.backOfficePort].map(tcp);
      egress.push({ to: [pods(PSP_SIMULATOR.name)], ports });
    }
  }
  return egress;
}
