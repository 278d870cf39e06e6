import { natsAuthorization } from '@pix/contracts';
import { loadSettings } from './settings';

/**
 * `node k8s/build/nats-authorization.js <settings.json>`: the authorization block for a managed NATS
 * (the in-cluster one has it in its ConfigMap), with the settings' public keys: each identity's
 * permissions as @pix/contracts derives them. Paste it into that server's configuration.
 */
const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: nats-authorization <settings.json>\n');
  process.exit(2);
}
process.stdout.write(natsAuthorization(loadSettings(file).nats.publicKeys));
