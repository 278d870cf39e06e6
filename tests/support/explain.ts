import type { Db, Document } from 'mongodb';
import { Client } from 'pg';

/** A node of PostgreSQL's plan, as DocumentDB's explain returns it. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** Every node of the plan the engine makes for a read command (find, aggregate, count). */
export async function explain(db: Db, command: Document): Promise<PlanNode[]> {
  const res = await db.command({ explain: command, verbosity: 'queryPlanner' });
  return planNodes((res.queryPlanner as { Plan: PlanNode }).Plan);
}

/** The indexes a plan scans; a plan that reads a table sequentially scans none. */
export function scannedIndexes(nodes: readonly PlanNode[]): string[] {
  if (nodes.some((n) => n['Node Type'] === 'Seq Scan')) return [];
  return nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
}

/**
 * The read a write command makes to find its documents, as a find (DocumentDB explains no
 * updates): the filter of each statement of an update or delete, the query of a findAndModify.
 */
export function readsOf(command: Document): Document[] {
  if (command.findAndModify) return [{ find: command.findAndModify, filter: command.query, limit: 1 }];
  const collection = (command.update ?? command.delete) as string;
  const statements = (command.updates ?? command.deletes) as { q: Document }[] | undefined;
  return (statements ?? []).map((s) => ({ find: collection, filter: s.q }));
}

/**
 * Fresh planner statistics for every table of the engine's database (DocumentDB keeps each
 * collection in a table of its own), so that plans are the ones real data gets.
 */
export async function analyzeEngine(postgresUrl: string): Promise<void> {
  const pg = new Client({ connectionString: postgresUrl });
  await pg.connect();
  try {
    await pg.query('ANALYZE');
  } finally {
    await pg.end();
  }
}
