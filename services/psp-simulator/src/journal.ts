import type { ApiOperation } from './faults';

/** One API Pix request as the simulator's journal keeps it: what was asked and how it was answered. */
export interface JournalLine {
  operation: ApiOperation;
  /** The path's parameters (txid, e2eid, id, chave) and the query (GET /pix's window and page). */
  params: Record<string, string>;
  query: Record<string, string>;
  /** The status answered; null while the answer is held back (a slow fault), or when the client left first. */
  status: number | null;
  /** When it arrived. */
  at: string;
}

/** Lines kept: the newest, enough for a test's or a rehearsal's look back, bounded in memory. */
export const JOURNAL_LINES = 10_000;

/**
 * The PSP's access log of API Pix requests (no header, no body: never a token or a secret), which
 * the back office reads (GET /journal): how often a client retried a charge, which pages of GET
 * /pix a reconciliation read, which Pix it read back.
 */
export class Journal {
  private readonly lines: JournalLine[] = [];

  constructor(private readonly capacity = JOURNAL_LINES) {}

  record(line: JournalLine): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** The lines kept, oldest first; of one operation when asked. */
  list(operation?: ApiOperation): JournalLine[] {
    return operation ? this.lines.filter((line) => line.operation === operation) : [...this.lines];
  }
}
