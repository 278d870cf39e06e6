import {
  STATEMENT_TIME_ZONE,
  StatementTexts,
  type BalanceExportPage,
  type BalanceTransaction,
  type ExportCursor,
} from '@pix/contracts';

/**
 * A statement as a CSV that Brazilian spreadsheets open as they are (Excel and LibreOffice in
 * pt-BR): `;` between fields, a decimal comma, dates dd/mm/aaaa, UTF-8 with a byte order mark (Excel
 * reads accents only with it) and CRLF line ends. Written a page at a time as payments hands the
 * pages out, so a day of 100,000 movements never sits in memory whole.
 */

const BOM = '\uFEFF';

const dateFormat = new Intl.DateTimeFormat('pt-BR', {
  timeZone: STATEMENT_TIME_ZONE,
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
});
const timeFormat = new Intl.DateTimeFormat('pt-BR', {
  timeZone: STATEMENT_TIME_ZONE,
  hourCycle: 'h23',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A BRL amount with a decimal comma and no thousands separator: -1234,56. */
export function csvAmount(amount: number): string {
  const cents = Math.round(amount * 100);
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)},${String(abs % 100).padStart(2, '0')}`;
}

/**
 * A text field: quoted when it holds a separator, a quote or a line end; one a spreadsheet would
 * take for a formula (=, +, -, @) is led by an apostrophe, so a value told by a PSP cannot run.
 */
function text(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[;"\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const T = StatementTexts;

export function csvHeader(): string {
  return `${BOM}${T.csvColumns.map(text).join(';')}\r\n`;
}

export function csvLine(tx: BalanceTransaction): string {
  const at = new Date(tx.createdAt);
  return (
    [
      dateFormat.format(at),
      timeFormat.format(at),
      text(T.types[tx.type]),
      csvAmount(tx.amount),
      text(tx.paymentId),
      text(tx.refundId),
      text(tx.endToEndId),
      text(tx.origin ? T.origins[tx.origin] : null),
      text(tx.nature ? T.natures[tx.nature] : null),
      text(tx.connection),
      text(tx.id),
    ].join(';') + '\r\n'
  );
}

/** Where the CSV goes: an HTTP response, or any stream that says when it is full. */
export interface CsvSink {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * Writes the header, then each page as payments hands it out, waiting for the sink to drain when it
 * is full: memory holds one page. Answers how many movements were written.
 */
export async function writeStatementCsv(
  sink: CsvSink,
  nextPage: (cursor: ExportCursor | null) => Promise<BalanceExportPage>,
): Promise<number> {
  let written = 0;
  let cursor: ExportCursor | null = null;
  await put(sink, csvHeader());
  do {
    const page: BalanceExportPage = await nextPage(cursor);
    if (page.items.length > 0) await put(sink, page.items.map(csvLine).join(''));
    written += page.items.length;
    cursor = page.next;
  } while (cursor);
  return written;
}

async function put(sink: CsvSink, chunk: string): Promise<void> {
  if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', resolve));
}
