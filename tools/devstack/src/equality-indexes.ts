import crypto from 'node:crypto';
import { EqualityIndexedFields } from '@pix/contracts';
import { MongoClient, MongoServerError } from 'mongodb';
import { Client } from 'pg';

/** PostgreSQL truncates longer identifiers, which could make two index names one. */
const MAX_IDENTIFIER = 63;
/** MongoDB's NamespaceExists: the collection is there already. */
const NAMESPACE_EXISTS = 48;

/** The name of the GIN expression index that serves equality on one field of one collection. */
export function equalityIndexName(collection: string, field: string): string {
  const name = `${collection}_${field}_gin`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (name.length <= MAX_IDENTIFIER) return name;
  const hash = crypto.createHash('sha1').update(`${collection}\0${field}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER - 9)}_${hash}`;
}

/**
 * Makes sure every collection of the list exists in the stack's database and that each listed
 * field has a GIN expression index on `(_jsonb->'field')`, the only index FerretDB's pushed-down
 * equality (`_jsonb->'field' @> value`) can use. FerretDB keeps a MongoDB database as a PostgreSQL
 * schema of the same name and each collection as a table whose name its metadata table holds.
 * FerretDB does not know these indexes (listIndexes does not show them, so syncIndexes leaves them
 * alone); dropping a collection drops them, and the next start of the stack makes them again.
 */
export async function ensureEqualityIndexes(
  mongoUrl: string,
  postgresUrl: string,
  list: Readonly<Record<string, readonly string[]>> = EqualityIndexedFields,
): Promise<void> {
  const collections = Object.keys(list);
  if (collections.length === 0) return;
  const database = await createCollections(mongoUrl, collections);
  const pg = new Client({ connectionString: postgresUrl });
  await pg.connect();
  try {
    const schema = pg.escapeIdentifier(database);
    const { rows } = await pg.query<{ collection: string; table: string }>(
      `SELECT _jsonb->>'_id' AS collection, _jsonb->>'table' AS table FROM ${schema}._ferretdb_database_metadata`,
    );
    const tables = new Map(rows.map((row) => [row.collection, row.table]));
    for (const [collection, fields] of Object.entries(list)) {
      const table = tables.get(collection);
      if (!table) throw new Error(`FerretDB has no table for the collection ${collection}`);
      for (const field of fields) {
        // Only a top-level field is pushed down as `_jsonb->'field'`; a dotted path is not.
        if (!field || field.includes('.') || field.startsWith('$')) {
          throw new Error(`EqualityIndexedFields.${collection}: "${field}" is not a top-level field`);
        }
        await pg.query(
          `CREATE INDEX IF NOT EXISTS ${pg.escapeIdentifier(equalityIndexName(collection, field))} ` +
            `ON ${schema}.${pg.escapeIdentifier(table)} USING gin ((_jsonb->${pg.escapeLiteral(field)}))`,
        );
      }
    }
  } finally {
    await pg.end();
  }
}

/** Creates the collections that do not exist yet (FerretDB makes their tables); returns the database's name. */
async function createCollections(mongoUrl: string, collections: readonly string[]): Promise<string> {
  const mongo = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 30_000 });
  await mongo.connect();
  try {
    const db = mongo.db();
    for (const collection of collections) {
      await db.createCollection(collection).catch((err: unknown) => {
        if (!(err instanceof MongoServerError && err.code === NAMESPACE_EXISTS)) throw err;
      });
    }
    return db.databaseName;
  } finally {
    await mongo.close();
  }
}
