/** Requests sent, one per key, at a fixed rate whatever the answers; `refused` settles once all are answered. */
export interface Paced {
  sentAt: Map<string, number>;
  started: number;
  lastSent: number;
  refused: Promise<number>;
}

/**
 * Sends one request per key at `ratePerSecond` (an open loop: a slow answer does not hold back the
 * next request); `send` says whether its request was accepted, and one that throws was not.
 */
export async function paceRequests(
  keys: readonly string[],
  ratePerSecond: number,
  send: (key: string) => Promise<boolean>,
): Promise<Paced> {
  const sentAt = new Map<string, number>();
  const answers: Promise<boolean>[] = [];
  const started = performance.now();
  for (const [i, key] of keys.entries()) {
    const due = started + (i * 1000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sentAt.set(key, performance.now());
    answers.push(send(key).catch(() => false));
  }
  const refused = Promise.all(answers).then((ok) => ok.filter((accepted) => !accepted).length);
  return { sentAt, started, lastSent: performance.now(), refused };
}
