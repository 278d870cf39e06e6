/** MongoDB's duplicate key error (E11000): an insert met a document already there under a unique key. */
export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}
