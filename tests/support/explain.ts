import type { Db, Document } from 'mongodb';

/** A node of PostgreSQL's plan as FerretDB's explain returns it. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** What FerretDB's explain says of a command: whether its filter went to SQL, and every plan node. */
export interface Plan {
  pushdown: boolean;
  nodes: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

export async function explain(db: Db, command: Document): Promise<Plan> {
  const res = await db.command({ explain: command, verbosity: 'queryPlanner' });
  return { pushdown: res.filterPushdown === true, nodes: planNodes((res.queryPlanner as { Plan: PlanNode }).Plan) };
}

/** The aggregate the driver's countDocuments sends for a filter. */
export function countCommand(collection: string, filter: Document): Document {
  return { aggregate: collection, pipeline: [{ $match: filter }, { $group: { _id: 1, n: { $sum: 1 } } }], cursor: {} };
}

/** Pushed down, no sequential scan, and a scan of one of `indexes`. */
export function expectServedByIndex(plan: Plan, indexes: readonly string[]): void {
  expect(plan.pushdown).toBe(true);
  expect(plan.nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
  expect(plan.nodes.some((n) => n['Index Name'] !== undefined && indexes.includes(n['Index Name']))).toBe(true);
}
