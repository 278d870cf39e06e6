/**
 * Database commands sent so far by all of a stack's services together (db_commands_total, from
 * each driver's command monitoring), in the platform's own collections: the sandbox PSP's books
 * stand for a PSP's own database and are left out, as the command budgets of issue 10 leave them
 * out. Null when no service exports the metric (an older baseline) or a service does not answer
 * within a few seconds (a stack still working through a backlog; the bench does not wait for it).
 */
const SAMPLE = /^db_commands_total\{([^}]*)\} (\d+(?:\.\d+)?)$/;
const SANDBOX_PSP = /collection="sandbox_psp_/;
const SCRAPE_TIMEOUT_MS = 5000;

export async function databaseCommands(opsUrls: Record<string, string>): Promise<number | null> {
  const texts = await Promise.all(
    Object.values(opsUrls).map((url) =>
      fetch(`${url}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) }).then(
        (res) => res.text(),
        () => null,
      ),
    ),
  );
  if (texts.some((text) => text === null)) return null;
  if (!texts.some((text) => text?.includes('# TYPE db_commands_total '))) return null;
  let total = 0;
  for (const line of texts.join('\n').split('\n')) {
    const match = SAMPLE.exec(line);
    if (match && !SANDBOX_PSP.test(match[1] ?? '')) total += Number(match[2]);
  }
  return total;
}
