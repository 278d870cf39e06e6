import { NATS_IDENTITIES, type NatsIdentity } from './identities';
import { natsAccounts, natsPermissions, type NatsAccount, type NatsPermissions } from './permissions';

/**
 * The nats-server configuration for the permissions table: one variable per identity with its
 * users' permissions, and the `accounts` block (permissions.ts's natsAccounts): each account with
 * its nkey users, one per public key, and what it imports and exports. Nobody connects without a
 * known key (no anonymous user, no global account). An identity may have several keys: while a
 * key is rotated, the old and the new one both connect. Public keys only: the seeds stay with
 * their owners. The server must run with JetStream on (`-js` or a `jetstream {}` block); only the
 * JETSTREAM account uses it.
 */
export function natsAuthorization(publicKeys: Record<NatsIdentity, readonly string[]>): string {
  const permissions = natsPermissions();
  for (const identity of NATS_IDENTITIES) {
    const keys = publicKeys[identity];
    if (keys.length === 0) throw new Error(`no NATS public key for ${identity}`);
    const bad = keys.find((key) => !isUserPublicKey(key));
    if (bad) throw new Error(`not an nkey user public key for ${identity}: ${bad}`);
  }
  const lines = NATS_IDENTITIES.map((identity) => `${variableOf(identity)} = ${render(permissions[identity])}`);
  lines.push('accounts {');
  for (const account of natsAccounts()) lines.push(...renderAccount(account, publicKeys));
  lines.push('}');
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
  return [
    '{',
    `  publish: { allow: ${list(p.publish.allow)} }`,
    `  subscribe: { allow: ${list(p.subscribe.allow)} }`,
    `  allow_responses: ${p.allowResponses}`,
    '}',
  ].join('\n');
}

function renderAccount(account: NatsAccount, publicKeys: Record<NatsIdentity, readonly string[]>): string[] {
  const users = account.identities.flatMap((identity) =>
    publicKeys[identity].map((key) => `      { nkey: ${key}, permissions: $${variableOf(identity)} }`),
  );
  const imports = account.imports.map(
    (entry) => `      { ${entry.kind}: { account: ${entry.account}, subject: ${JSON.stringify(entry.subject)} } }`,
  );
  const exports = account.exports.map(
    (entry) =>
      `      { ${entry.kind}: ${JSON.stringify(entry.subject)}, accounts: [${entry.accounts.join(', ')}]` +
      // Without it, an export answers once per request and forgets the reply subject after the first message.
      `${entry.streamedAnswers ? ', response_type: stream' : ''} }`,
  );
  return [
    `  ${account.name} {`,
    `    jetstream: ${account.jetstream ? 'enabled' : 'disabled'}`,
    '    users: [',
    ...users,
    '    ]',
    ...(imports.length ? ['    imports: [', ...imports, '    ]'] : []),
    ...(exports.length ? ['    exports: [', ...exports, '    ]'] : []),
    '  }',
  ];
}
