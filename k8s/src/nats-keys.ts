import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createUser } from '@nats-io/nkeys';
import { NATS_IDENTITIES, type NatsIdentity } from '@pix/contracts';
import { natsSeedSecret } from './workloads';

/**
 * `node k8s/build/nats-keys.js <dir> [identity …] [--namespace pix]`: a new nkey for each identity
 * (every one by default, or those named, to rotate them), its seed written to <dir>/<identity>.nk
 * (readable by its owner only, never overwritten), and what to do with them: the `kubectl` that
 * puts each seed in its Secret, and the public keys for the settings' `nats.publicKeys`.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { namespace: { type: 'string', default: 'pix' } },
});
const [dir, ...named] = positionals;
if (!dir) {
  process.stderr.write(`usage: nats-keys <dir> [${NATS_IDENTITIES.join('|')} …] [--namespace pix]\n`);
  process.exit(2);
}
const unknown = named.filter((name) => !(NATS_IDENTITIES as readonly string[]).includes(name));
if (unknown.length > 0) {
  process.stderr.write(`not an identity: ${unknown.join(', ')} (one of ${NATS_IDENTITIES.join(', ')})\n`);
  process.exit(2);
}
const identities = named.length > 0 ? (named as NatsIdentity[]) : [...NATS_IDENTITIES];

fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
const existing = identities.map((identity) => path.join(dir, `${identity}.nk`)).filter((file) => fs.existsSync(file));
if (existing.length > 0) {
  process.stderr.write(`not overwritten (move them away first): ${existing.join(', ')}\n`);
  process.exit(1);
}
const publicKeys: Record<string, string> = {};
const commands: string[] = [];
for (const identity of identities) {
  const file = path.join(dir, `${identity}.nk`);
  const user = createUser();
  fs.writeFileSync(file, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600, flag: 'wx' });
  publicKeys[identity] = user.getPublicKey();
  commands.push(
    `kubectl -n ${values.namespace} create secret generic ${natsSeedSecret(identity)} --from-file=seed=${file}`,
  );
}
process.stdout.write(
  [
    '# The public keys, for nats.publicKeys in the settings (beside the old key while one is rotated):',
    JSON.stringify(publicKeys, null, 2),
    '',
    '# Each seed into its Secret (for a rotation: kubectl … --dry-run=client -o yaml | kubectl apply -f -):',
    ...commands,
    '',
  ].join('\n'),
);
