/**
 * Database commands sent so far by all of a stack's services together (db_commands_total, from
 * each driver's command monitoring), in the platform's own collections: the sandbox PSP's books
 * stand for a PSP's own database and are left out, as the command budgets of issue 10 leave them
 * out. Null when no service exports the metric (an older baseline).
 */
const SAMPLE = /^db_commands_total\{([^}]*)\} (\d+(?:\.\d+)?)$/;
const SANDBOX_PSP = /collection="sandbox_psp_/;

export async function databaseCommands(opsUrls: Record<string, string>): Promise<number | null> {
  let total = 0;
  let exported = false;
  for (const url of Object.values(opsUrls)) {
    const text = await (await fetch(`${url}/metrics`)).text();
    if (text.includes('# TYPE db_commands_total ')) exported = true;
    for (const line of text.split('\n')) {
      const match = SAMPLE.exec(line);
      if (match && !SANDBOX_PSP.test(match[1] ?? '')) total += Number(match[2]);
    }
  }
  return exported ? total : null;
}
