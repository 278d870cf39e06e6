const SAMPLE = /^db_commands_total\{([^}]*)\} (\d+(?:\.\d+)?)$/;
const SANDBOX_PSP = /collection="sandbox_psp_/;
const SCRAPE_TIMEOUT_MS = 5000;

/**
 * Every sample of db_commands_total (each driver's command monitoring), by service and its labels
 * (`<service> command="…",…`). Null when no service exports the metric (an older baseline) or a
 * service does not answer within a few seconds (a stack still working through a backlog; the bench
 * does not wait for it).
 */
export async function commandSamples(opsUrls: Record<string, string>): Promise<Map<string, number> | null> {
  const answers = await Promise.all(
    Object.entries(opsUrls).map(([service, url]) =>
      fetch(`${url}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) }).then(
        async (res) => ({ service, text: await res.text() }),
        () => null,
      ),
    ),
  );
  const scraped = answers.filter((answer) => answer !== null);
  if (scraped.length < answers.length) return null;
  if (!scraped.some(({ text }) => text.includes('# TYPE db_commands_total '))) return null;
  const samples = new Map<string, number>();
  for (const { service, text } of scraped) {
    for (const line of text.split('\n')) {
      const match = SAMPLE.exec(line);
      if (match) samples.set(`${service} ${match[1]}`, Number(match[2]));
    }
  }
  return samples;
}

/**
 * Database commands sent so far by all of a stack's services together, in the platform's own
 * collections: the sandbox PSP's books stand for a PSP's own database and are left out, as the
 * command budgets of issue 10 leave them out. Null as commandSamples is.
 */
export async function databaseCommands(opsUrls: Record<string, string>): Promise<number | null> {
  const samples = await commandSamples(opsUrls);
  if (!samples) return null;
  let total = 0;
  for (const [key, count] of samples) if (!SANDBOX_PSP.test(key)) total += count;
  return total;
}

/**
 * The commands sent between two samplings of commandSamples, per unit of work: one `cmd` line per
 * service and labels that moved, in order, each followed by `suffix` (none: per the tool's unit).
 */
export function commandLines(
  before: Map<string, number> | null,
  after: Map<string, number> | null,
  units: number,
  suffix = '',
): string[] {
  const lines: string[] = [];
  for (const [key, n] of [...(after ?? [])].sort()) {
    const moved = n - (before?.get(key) ?? 0);
    if (moved > 0) lines.push(`cmd ${key} ${(moved / units).toFixed(3)}${suffix}`);
  }
  return lines;
}
