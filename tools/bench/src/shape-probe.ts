import fs from 'node:fs';
import path from 'node:path';

/**
 * `node shape-probe.js <checkout>`: prints the top-level fields of that checkout's payments model
 * (mongoose schema of the collection `payments`), with whether each is required and its default.
 * Only compiled modules that define a mongoose model are loaded, never a service's entry point.
 */
interface SchemaType {
  isRequired?: boolean;
  getDefault?: (scope: unknown, init: boolean) => unknown;
}
interface Model {
  schema: { get(option: string): unknown; eachPath(fn: (path: string, type: SchemaType) => void): void };
  collection?: { collectionName?: string };
}
interface Mongoose {
  models: Record<string, Model>;
}

function modelFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return modelFiles(file);
    if (!entry.name.endsWith('.js')) return [];
    const text = fs.readFileSync(file, 'utf8');
    return /\.model\(/.test(text) && /Schema\(/.test(text) ? [file] : [];
  });
}

const root = process.argv[2] ?? '';
const dist = path.join(root, 'services', 'payments', 'dist');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the checkout's own mongoose, where its models register
const mongoose = require(require.resolve('mongoose', { paths: [dist] })) as Mongoose;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded for the models they register
for (const file of modelFiles(dist)) require(file);
const model = Object.values(mongoose.models).find(
  (m) => (m.schema.get('collection') ?? m.collection?.collectionName) === 'payments',
);
if (!model) {
  process.stderr.write(`no mongoose model of the collection payments under ${dist}\n`);
  process.exit(1);
}
const fields: Record<string, { required: boolean; default?: unknown }> = {};
model.schema.eachPath((fieldPath, type) => {
  const top = fieldPath.split('.')[0] ?? fieldPath;
  const entry = (fields[top] ??= { required: false });
  if (fieldPath !== top) return;
  entry.required = Boolean(type.isRequired);
  const value = type.getDefault?.(undefined, true);
  if (value !== undefined) entry.default = value instanceof Date ? { $date: value.toISOString() } : value;
});
process.stdout.write(JSON.stringify(fields));
