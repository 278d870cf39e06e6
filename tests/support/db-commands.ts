/** db_commands_total of every service, as `service command collection` → count. */
export type CommandCounts = Map<string, number>;

const LINE = /^db_commands_total\{([^}]*)\} (\d+(?:\.\d+)?)$/;

function labels(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

/** Reads the database commands each service has sent so far (the driver's command monitoring). */
export async function commandCounts(stack: { opsUrls: Record<string, string> }): Promise<CommandCounts> {
  const counts: CommandCounts = new Map();
  for (const url of Object.values(stack.opsUrls)) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const line of text.split('\n')) {
      const match = LINE.exec(line);
      if (!match) continue;
      const { service, command, collection } = labels(match[1] ?? '');
      counts.set(`${service} ${command} ${collection}`, Number(match[2]));
    }
  }
  return counts;
}

/** The commands sent between two readings (the platform's services; the PSP simulator's books are the PSP's). */
export function commandsBetween(before: CommandCounts, after: CommandCounts): CommandCounts {
  const delta: CommandCounts = new Map();
  for (const [key, value] of after) {
    const n = value - (before.get(key) ?? 0);
    if (n > 0) delta.set(key, n);
  }
  return delta;
}

export function total(counts: CommandCounts): number {
  return [...counts.values()].reduce((a, b) => a + b, 0);
}

/**
 * Waits until no service has sent a database command for `quietMs`, then returns the counts: the
 * work an operation caused, background steps included, is over.
 */
export async function settledCounts(
  stack: { opsUrls: Record<string, string> },
  quietMs = 750,
  timeoutMs = 20_000,
): Promise<CommandCounts> {
  const deadline = Date.now() + timeoutMs;
  let last = await commandCounts(stack);
  let stableSince = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await commandCounts(stack);
    if (total(commandsBetween(last, now)) > 0) {
      last = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= quietMs) {
      return now;
    }
    if (Date.now() > deadline) throw new Error('the database never went quiet');
  }
}
