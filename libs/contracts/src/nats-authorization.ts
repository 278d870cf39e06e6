import { NATS_IDENTITIES, type NatsIdentity } from './identities';
import { natsPermissions, type NatsPermissions } from './permissions';

/**
 * The nats-server `authorization` block for the permissions table: one nkey user per public key,
 * each with its identity's permissions, so nobody connects without a known key (no anonymous
 * user). An identity may have several keys: while a key is rotated, the old and the new one both
 * connect. Public keys only: the seeds stay with their owners.
 */
export function natsAuthorization(publicKeys: Record<NatsIdentity, readonly string[]>): string {
  const permissions = natsPermissions();
  const lines = ['authorization {'];
  // One variable per identity, which each of its keys refers to.
  for (const identity of NATS_IDENTITIES) {
    lines.push(`  ${variableOf(identity)} = ${render(permissions[identity])}`);
  }
  lines.push('  users = [');
  for (const identity of NATS_IDENTITIES) {
    const keys = publicKeys[identity];
    if (keys.length === 0) throw new Error(`no NATS public key for ${identity}`);
    for (const key of keys) {
      if (!isUserPublicKey(key)) throw new Error(`not an nkey user public key for ${identity}: ${key}`);
      lines.push(`    { nkey: ${key}, permissions: $${variableOf(identity)} }`);
    }
  }
  lines.push('  ]', '}');
  return `${lines.join('\n')}\n`;
}

/** An nkey user's public key: `U` and 55 more base32 characters (its checksum is the server's to verify). */
export function isUserPublicKey(key: string): boolean {
  return /^U[A-Z2-7]{55}$/.test(key);
}

function variableOf(identity: NatsIdentity): string {
  return `PERMISSIONS_${identity.toUpperCase().replace(/-/g, '_')}`;
}

/** Subjects are quoted: `$JS.API…` unquoted would read as a variable. */
function list(subjects: readonly string[]): string {
  return `[${subjects.map((subject) => JSON.stringify(subject)).join(', ')}]`;
}

function render(p: NatsPermissions): string {
  const publish = [
    `allow: ${list(p.publish.allow)}`,
    ...(p.publish.deny.length ? [`deny: ${list(p.publish.deny)}`] : []),
  ];
  return [
    '{',
    `    publish: { ${publish.join(', ')} }`,
    `    subscribe: { allow: ${list(p.subscribe.allow)} }`,
    `    allow_responses: ${p.allowResponses}`,
    '  }',
  ].join('\n');
}
