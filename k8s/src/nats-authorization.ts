import { natsAuthorization } from '@pix/contracts';
import { loadSettings } from './settings';

/**
 * `node k8s/build/nats-authorization.js <settings.json>`: the accounts block for a managed NATS (the
 * in-cluster one has it in its ConfigMap), with the settings' public keys: an account per identity,
 * JetStream in the JETSTREAM account, each identity's imports and permissions as @pix/contracts
 * derives them. Paste it into that server's configuration (JetStream enabled).
 */
const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: nats-authorization <settings.json>\n');
  process.exit(2);
}
process.stdout.write(natsAuthorization(loadSettings(file).nats.publicKeys));
