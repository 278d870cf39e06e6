import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * What the bench takes from the checkout it measures, so that each side runs the way its own
 * `make up` would: its own stack (engine and all) and its own payment documents. The load itself,
 * the NATS calls and the driver are this checkout's.
 */
export type Devstack = typeof import('@pix/devstack');

export function loadDevstack(root: string): Devstack {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the measured checkout's build, chosen at run time
  return require(path.join(root, 'tools', 'devstack', 'dist', 'index.js')) as Devstack;
}

/** A top-level field of the payments schema: whether it must be given, and its default otherwise. */
export interface FieldShape {
  required: boolean;
  default?: unknown;
}

/**
 * The top-level fields of the checkout's payments model, read by shape-probe.js in a process of its
 * own (loading two checkouts' models, and whatever they import, into one process would collide).
 */
export function paymentShape(root: string): Record<string, FieldShape> {
  const out = execFileSync(process.execPath, [path.join(__dirname, 'shape-probe.js'), root], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out, (_key, value: unknown) =>
    value && typeof value === 'object' && '$date' in value ? new Date((value as { $date: string }).$date) : value,
  ) as Record<string, FieldShape>;
}

/**
 * A payment document as the checkout's model stores it: the known fields it declares, its defaults
 * for the others; a required field the bench has no value for stops the bench, rather than seeding
 * documents the services would not have written.
 */
export function shapeDocument(
  shape: Record<string, FieldShape>,
  known: Record<string, unknown>,
): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const [field, spec] of Object.entries(shape)) {
    if (field in known) doc[field] = known[field];
    else if (spec.default !== undefined) doc[field] = structuredClone(spec.default);
    else if (spec.required)
      throw new Error(`the payments model requires "${field}": teach tools/bench/src/seed.ts its value`);
  }
  return doc;
}

/** The keys a checkout's list reads payments by (issue 17 on), so seeded payments are listed too. */
export interface ListKeys {
  listKey(storeId: string, createdAt: Date, id: string): string;
  statusKey(storeId: string, status: string, createdAt: Date, id: string): string;
}

/** The checkout's list keys, from its compiled list-page module (types only, no I/O); null before them. */
export function loadListKeys(root: string): ListKeys | null {
  const file = path.join(root, 'services', 'payments', 'dist', 'list-page.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the measured checkout's build, chosen at run time
  return fs.existsSync(file) ? (require(file) as ListKeys) : null;
}

/**
 * Where the checkout keeps a store's payment counts, which the list's total reads (a JetStream
 * counter per store and status, issue 17 on); null for a checkout that counts in the database.
 */
export interface PaymentCounters {
  stream: string;
  subject(storeId: string, key: string): string;
}

export function loadPaymentCounters(root: string): PaymentCounters | null {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the measured checkout's build, chosen at run time
  const contracts = require(path.join(root, 'libs', 'contracts', 'dist', 'index.js')) as {
    Streams: Record<string, { name: string }>;
    Subjects: { paymentCount?: (storeId: string, key: string) => string };
  };
  const stream = contracts.Streams.paymentCounts;
  const subject = contracts.Subjects.paymentCount;
  return stream && subject ? { stream: stream.name, subject } : null;
}
