/**
 * The database answers a round trip now. The driver's connection state stays "connected" for a
 * while after the server went away, so readiness asks the server itself.
 */
export async function databaseReachable(
  db: { command(command: { ping: 1 }): Promise<unknown> } | undefined,
): Promise<boolean> {
  if (!db) return false;
  await db.command({ ping: 1 });
  return true;
}
