import fs from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { TOOLS_BIN } from './layout';
import { connectAs, natsAuthorizationFile, natsCredentials } from './nats-access';
import { assertPortFree, goServerEnv, launch, sleep, waitForPort, type Started } from './processes';

/** One member of a local NATS cluster: where clients connect, and where the other members route to it. */
export interface NatsNodePorts {
  client: number;
  route: number;
}

/** The cluster's name; every member must give the same one. */
const CLUSTER_NAME = 'pix';

/** A member's name: its process, its log and its JetStream server name (unique in the cluster). */
export function natsMemberName(index: number): string {
  return `nats-${index + 1}`;
}

/** What the services connect to: every member, so that they fail over between them. */
export function natsClusterUrl(members: readonly NatsNodePorts[]): string {
  return members.map((member) => `nats://127.0.0.1:${member.client}`).join(',');
}

function natsBinary(): string {
  const local = path.join(TOOLS_BIN, 'nats-server');
  return fs.existsSync(local) ? local : 'nats-server';
}

/**
 * Starts (or restarts) one member of a local JetStream cluster, with its data in data/nats-<n>
 * (kept across restarts, so a restarted member catches up from its own copy) and routes to the
 * others. It listens at once; it is part of the cluster once the routes are up. Every member has
 * the stack's authorization, the same on each; the routes between them are not subject to it.
 */
export async function startNatsMember(
  dir: string,
  members: readonly NatsNodePorts[],
  index: number,
  detached: boolean,
  timeoutMs = 90_000,
): Promise<Started> {
  const member = members[index];
  if (!member) throw new Error(`the NATS cluster has no member ${index}`);
  const name = natsMemberName(index);
  const dataDir = path.join(dir, 'data', name);
  fs.mkdirSync(dataDir, { recursive: true });
  await assertPortFree(member.client, name);
  await assertPortFree(member.route, `${name} (routes)`);
  const routes = members
    .filter((_, i) => i !== index)
    .map((other) => `nats://127.0.0.1:${other.route}`)
    .join(',');
  const started = launch(
    name,
    natsBinary(),
    [
      '-c',
      natsAuthorizationFile(dir),
      '-js',
      '-sd',
      dataDir,
      '-a',
      '127.0.0.1',
      '-p',
      String(member.client),
      '--server_name',
      name,
      '--cluster_name',
      CLUSTER_NAME,
      '--cluster',
      `nats://127.0.0.1:${member.route}`,
      '--routes',
      routes,
    ],
    { env: goServerEnv(), logFile: path.join(dir, 'logs', `${name}.log`), detached },
  );
  await waitForPort('127.0.0.1', member.client, timeoutMs, name);
  return started;
}

/**
 * Starts every member of the cluster and waits until JetStream answers (the members have elected a
 * meta leader), so that the services' first stream creation does not meet a cluster still forming.
 */
export async function startNatsCluster(
  dir: string,
  members: readonly NatsNodePorts[],
  detached: boolean,
  timeoutMs = 90_000,
): Promise<Started[]> {
  const started: Started[] = [];
  for (let i = 0; i < members.length; i++) started.push(await startNatsMember(dir, members, i, detached, timeoutMs));
  await waitForJetStream(dir, natsClusterUrl(members), timeoutMs);
  return started;
}

/** Waits until JetStream answers an account query through the given servers (asked as the provisioning step). */
async function waitForJetStream(dir: string, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const nc = await connectAs(url, 'provisioner', natsCredentials(dir), { reconnect: true });
  try {
    for (;;) {
      const ready = await jetstreamManager(nc, { timeout: 2000 })
        .then((jsm) => jsm.getAccountInfo())
        .then(
          () => true,
          () => false,
        );
      if (ready) return;
      if (Date.now() > deadline) throw new Error(`JetStream did not answer on ${url} within ${timeoutMs} ms`);
      await sleep(250);
    }
  } finally {
    await nc.close();
  }
}
