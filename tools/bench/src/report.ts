import os from 'node:os';
import type { ApiFigure, ProcessCpu, SizeResult, StatementFigures, VariantResult } from './run-variant';
import type { Throughput } from './stats';
import type { ConfirmationLatency } from './confirmations';
import type { ReconciliationCost } from './reconciliation';
import type { FactSigningCost } from './fact-signing';
import { isPlatformProcess, platformSeconds } from './usage';

/**
 * The results as one markdown document: every figure at every size for each checkout measured,
 * the ratios the targets are stated in, and the targets beside them: issue 27's, and issue 17's
 * where 27 sets none.
 */
export interface RunInfo {
  startedAt: Date;
  minutes: number;
  settings: string;
  loadBefore: number[];
  loadAfter: number[];
  facts: FactSigningCost;
}

function num(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Reconciliation's cost while it found lost callbacks: per Pix listed and per Pix found. */
export function reconciliationCell(r: ReconciliationCost | null): string {
  if (!r) return '–';
  const per = (a: number | null, b: number) => (a === null || b === 0 ? null : a / b);
  return (
    `${num(per(r.listRequests, r.listed))} / ${num(per(r.cursorCommands, r.runs))} / ` +
    `${num(per(r.platformCommands, r.found))} (${r.approved} of ${r.paid} approved; ${r.runs} runs ` +
    `listed ${r.listed.toLocaleString('en-US')} Pix, found ${r.found})`
  );
}

/** A store's statement figures at the largest size; '–' where a checkout has no statement (404). */
function statementCell(s: SizeResult, pick: (f: StatementFigures) => ApiFigure[]): string {
  if (!s.statement || s.statement.day.ok === 0) return '–';
  const cells = pick(s.statement).map((f) => `${throughput(f)} (${num(f.dbCommandsPerRequest)})`);
  return `${cells.join(' / ')} (${s.statement.holds.toLocaleString('en-US')})`;
}

function pct(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '–' : `${Math.round(value * 100)} %`;
}

function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  return a === null || a === undefined || b === null || b === undefined || b === 0 ? null : a / b;
}

export function throughput(t: Throughput): string {
  if (t.ok === 0) return `none answered in time${t.failed > 0 ? ` (${t.failed.toLocaleString('en-US')} failed)` : ''}`;
  const failed = t.failed > 0 ? `, ${t.failed.toLocaleString('en-US')} failed` : '';
  return `${num(t.perSecond)} (${num(t.p50Ms)} / ${num(t.p99Ms)} ms${failed})`;
}

/** Milliseconds of CPU per answered request, summed over the platform's processes (the PSP simulators apart). */
function cpuMsPerRequest(f: ApiFigure): number | null {
  return f.ok === 0 ? null : (platformSeconds(f.cpu) * 1000) / f.ok;
}

function busiest(cpu: ProcessCpu[]): string {
  const top = [...cpu].sort((a, b) => b.percent - a.percent)[0];
  return top ? `${top.name} ${Math.round(top.percent)} %` : '–';
}

/** A latency figure to a webhook (a confirmation's, a refund's): p50 / p99, how many, at what rate. */
export function latency(c: ConfirmationLatency): string {
  if (c.sent === 0) return `none measured: no payment with a webhookUrl was created within ${c.waitSeconds} s`;
  if (c.refused === c.sent) return `none measured: all ${c.sent} refused (this checkout has no such operation?)`;
  const ms = (v: number | null) => (v === null ? `> ${c.waitSeconds} s` : `${num(v)} ms`);
  const missing = c.sent - c.received;
  const notes = [
    `${c.sent} at ${num(c.ratePerSecond)}/s`,
    missing > 0 ? `${missing} webhooks missing` : '',
    c.refused > 0 ? `${c.refused} refused` : '',
  ].filter(Boolean);
  return `${ms(c.p50Ms)} / ${ms(c.p99Ms)} (${notes.join(', ')})`;
}

interface Row {
  figure: string;
  target: string;
  cell: (s: SizeResult) => string;
  /** The figure at the largest size as a share of the smallest; higher is better throughout. */
  scale?: (small: SizeResult, large: SizeResult) => number | null;
}

const rate = (pick: (s: SizeResult) => Throughput) => (small: SizeResult, large: SizeResult) =>
  ratio(pick(large).perSecond, pick(small).perSecond);

const ROWS: Row[] = [
  {
    figure: 'create, req/s (p50 / p99)',
    target: 'p99 ≤ 100 ms',
    cell: (s) => throughput(s.create),
    scale: rate((s) => s.create),
  },
  {
    figure: 'raw insertOne, /s (p50 / p99)',
    target: '',
    cell: (s) => throughput(s.rawInsertOne),
    scale: rate((s) => s.rawInsertOne),
  },
  {
    figure: '**create ÷ raw insertOne**',
    target: '≥ 30 %',
    cell: (s) => pct(ratio(s.create.perSecond, s.rawInsertOne.perSecond)),
  },
  {
    figure: 'get by id, a payment the API made, req/s (p50 / p99)',
    target: '',
    cell: (s) => throughput(s.get),
    scale: rate((s) => s.get),
  },
  {
    figure: 'get by id, a seeded payment with no view, req/s (p50 / p99)',
    target: '',
    cell: (s) => (s.getFromDatabase ? throughput(s.getFromDatabase) : '-'),
  },
  {
    figure: 'raw findOne by _id, /s (p50 / p99)',
    target: '',
    cell: (s) => throughput(s.rawFindOne),
    scale: rate((s) => s.rawFindOne),
  },
  {
    figure: '**get ÷ raw findOne**',
    target: '≥ 80 %',
    cell: (s) => pct(ratio(s.get.perSecond, s.rawFindOne.perSecond)),
  },
  {
    figure: 'list (1,000 in store, limit 50, total), req/s',
    target: '',
    cell: (s) => throughput(s.list),
    scale: rate((s) => s.list),
  },
  {
    figure: 'list, one client, the largest store (payments in it), req/s',
    target: 'p99 ≤ 50 ms',
    cell: (s) => `${throughput(s.listLargeStore)} (${s.listLargeStore.storeHolds.toLocaleString('en-US')})`,
  },
  {
    figure: 'list, one client, a store that received the burst (payments in it) in the last two minutes, req/s',
    target: 'p99 ≤ 50 ms',
    cell: (s) => (s.burst ? `${throughput(s.burst.oneClient)} (${s.burst.holds.toLocaleString('en-US')})` : '–'),
  },
  {
    figure:
      '**list of the burst store, cold (its first list in the process) ÷ list of the 1,000-payment store**, ' +
      'both at the connections above',
    target: '≥ 60 %',
    cell: (s) =>
      s.burst
        ? `${pct(ratio(s.burst.concurrent.perSecond, s.burst.smallStore.perSecond))} ` +
          `(${throughput(s.burst.concurrent)} and ${throughput(s.burst.smallStore)})`
        : '–',
  },
  {
    figure:
      "statement of today, a store with a month's Pix (in it): one client / connections, req/s " +
      '(db commands per request)',
    target: '',
    cell: (s) => statementCell(s, (f) => [f.dayOneClient, f.day]),
  },
  {
    figure:
      'balance transactions, first page of 50, same store: one client / connections, req/s ' +
      '(db commands per request)',
    target: '',
    cell: (s) => statementCell(s, (f) => [f.listOneClient, f.list]),
  },
  {
    figure: "raw find (limit 50, sorted, by the list's index) + count, /s",
    target: '',
    cell: (s) => throughput(s.rawFindAndCount),
    scale: rate((s) => s.rawFindAndCount),
  },
  {
    figure: '**list ÷ raw find + count**',
    target: '≥ 50 %',
    cell: (s) => pct(ratio(s.list.perSecond, s.rawFindAndCount.perSecond)),
  },
  {
    figure: 'PSP confirmation → webhook, p50 / p99',
    target: 'p99 ≤ 100 ms at 50/s',
    cell: (s) => latency(s.confirmation),
    scale: (small, large) => ratio(small.confirmation.p99Ms, large.confirmation.p99Ms),
  },
  {
    figure: 'refund asked → refund.succeeded webhook (sandbox PSP), p50 / p99',
    target: 'measured (issue 25)',
    cell: (s) => latency(s.refund),
    scale: (small, large) => ratio(small.refund.p99Ms, large.refund.p99Ms),
  },
  {
    figure:
      'reconciliation, lost callbacks found: PSP list requests per Pix listed / cursor commands per run / ' +
      'db commands per Pix found (applied and delivered)',
    target: "0.01 / 2 / a confirmation's (issue 30)",
    cell: (s) => reconciliationCell(s.reconciliation ?? null),
  },
  {
    figure: 'db commands per create / get / list / confirmation / refund (all services, background included)',
    target: "get 1, create ≤ 2, confirmation 1 + the PSP's, refund: its check-and-write 1",
    cell: (s) =>
      [s.create, s.get, s.list].map((f: ApiFigure) => num(f.dbCommandsPerRequest)).join(' / ') +
      ` / ${num(s.confirmation.dbCommandsPerConfirmation)} / ${num(s.refund.dbCommandsPerRefund)}`,
  },
  {
    figure: 'CPU ms per create / get / list (every platform process: the PSP simulators apart)',
    target: 'closed loop: create ≤ 2.5, get ≤ 0.5 (issue 41)',
    cell: (s) => [s.create, s.get, s.list].map((f) => num(cpuMsPerRequest(f))).join(' / '),
  },
  {
    figure:
      'create at a fixed rate (an open loop: one at a time), req/s (p50 / p99); CPU ms per create (every platform process)',
    target: 'CPU ≤ 4.5 at 50/s (issue 41)',
    cell: (s) => `${throughput(s.createAtRate)}; ${num(cpuMsPerRequest(s.createAtRate))}`,
  },
  {
    figure: 'busiest process during create / get / list',
    target: '',
    cell: (s) => [s.create, s.get, s.list].map((f) => busiest(f.cpu)).join(', '),
  },
  {
    figure: 'payments stored (reads / after writes; ≈: not counted in time, written by the bench)',
    target: '',
    cell: (s) =>
      [s.stored, s.storedAfter]
        .map(({ count, exact }) => `${exact ? '' : '≈ '}${count.toLocaleString('en-US')}`)
        .join(' / '),
  },
  {
    figure: 'seeding through the driver, payments/s',
    target: '',
    cell: (s) => num(s.seedPerSecond),
  },
];

function sizeLabel(size: number): string {
  return size >= 1000 && size % 1000 === 0 ? `${size / 1000}k` : String(size);
}

function figuresTable(variants: VariantResult[]): string[] {
  const head = ['figure', 'target'];
  for (const v of variants) {
    const sizes = v.sizes.map((s) => sizeLabel(s.size));
    head.push(...sizes.map((size) => `${v.label}: ${size}`));
    if (v.sizes.length > 1) head.push(`${v.label}: ${sizes[sizes.length - 1]} ÷ ${sizes[0]} (≥ 80 %)`);
  }
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const row of ROWS) {
    const cells = [row.figure, row.target];
    for (const v of variants) {
      cells.push(...v.sizes.map(row.cell));
      const small = v.sizes[0];
      const large = v.sizes[v.sizes.length - 1];
      if (v.sizes.length > 1) cells.push(row.scale && small && large ? pct(row.scale(small, large)) : '');
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

function perProcessTable(
  variants: VariantResult[],
  title: string,
  target: (name: string) => string,
  value: (v: VariantResult, name: string) => string,
  total?: (v: VariantResult) => string,
): string[] {
  const names = [...new Set(variants.flatMap((v) => v.peakRssMiB.map((p) => p.name)))];
  const head = ['process', ...variants.map((v) => v.label), 'target'];
  const lines = [`| ${title} | ${head.slice(1).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const name of names)
    lines.push(`| ${name} | ${variants.map((v) => value(v, name)).join(' | ')} | ${target(name)} |`);
  if (total)
    lines.push(`| **whole platform** (the PSP simulators apart) | ${variants.map(total).join(' | ')} | ≤ 2 % |`);
  return lines;
}

const SERVICES = new Set(['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher']);

export function renderReport(variants: VariantResult[], info: RunInfo): string {
  const cpus = os.cpus();
  const largest = variants[0]?.sizes[variants[0].sizes.length - 1]?.size ?? 0;
  const lines = [
    `# make bench, ${info.startedAt.toISOString()}`,
    '',
    `Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, Node ${process.version}, ${os.type()} ${os.release()}. ` +
      `Load average (1 min) ${info.loadBefore[0]?.toFixed(2)} before, ${info.loadAfter[0]?.toFixed(2)} after: the machine is shared, so read differences of tens of percent as noise.`,
    '',
    `Run: ${info.settings}; took ${info.minutes.toFixed(1)} min.`,
    '',
    ...variants.map(
      (v) =>
        `- **${v.label}**: its own stack (${v.infrastructure.join(', ')} and the four services); bare Node HTTP ${throughput(v.bareHttp)} req/s (p50 / p99).`,
    ),
    '',
    'Throughput: closed loop at the connections above, p50 / p99 latency in ms. Raw figures are this',
    "process's MongoDB driver on the same database server at the same moment. The share column is the figure at the",
    'largest size as a share of the smallest (for latency, small ÷ large), so higher is better throughout.',
    '',
    ...figuresTable(variants),
    '',
    `Idle CPU, % of one core, over the idle window with ${largest.toLocaleString('en-US')} payments stored (a process counts with its children):`,
    '',
    ...perProcessTable(
      variants,
      'process',
      () => '',
      (v, name) => {
        const cpu = v.idleCpu.find((c) => c.name === name);
        return cpu ? `${cpu.percent.toFixed(2)} %` : '–';
      },
      (v) => `${v.idleCpu.reduce((sum, c) => (isPlatformProcess(c.name) ? sum + c.percent : sum), 0).toFixed(2)} %`,
    ),
    '',
    `CPU ms per create / get / list / create at a fixed rate by process, with ${largest.toLocaleString('en-US')} payments stored:`,
    '',
    ...perProcessTable(
      variants,
      'process',
      () => '',
      (v, name) => {
        const last = v.sizes[v.sizes.length - 1];
        if (!last) return '–';
        return [last.create, last.get, last.list, last.createAtRate]
          .map((f) => {
            const cpu = f.cpu.find((c) => c.name === name);
            return cpu && f.ok > 0 ? num((cpu.seconds * 1000) / f.ok) : '–';
          })
          .join(' / ');
      },
    ),
    '',
    'Peak resident memory (VmHWM, MiB; for a process with children, its largest) at the end of the run:',
    '',
    ...perProcessTable(
      variants,
      'process',
      (name) => (SERVICES.has(name) ? '≤ 150 MB' : ''),
      (v, name) => num(v.peakRssMiB.find((p) => p.name === name)?.mib),
    ),
    '',
    `Signed facts (Ed25519, this process, the current code): ${info.facts.signMicros.toFixed(1)} µs CPU to sign one, ` +
      `${info.facts.verifyMicros.toFixed(1)} µs to verify one; the signature adds ${info.facts.headerBytes} bytes of headers ` +
      `to a ${info.facts.payloadBytes}-byte payment event.`,
    '',
  ];
  return lines.join('\n');
}
