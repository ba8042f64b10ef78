/** Small DNS checks shared by the isolation bench (test/bench/isolation.ts) and its references. */
import { dnsClient } from './dns-servers';
import type { Question } from './udp-load';

/** A question not answered within this long is lost (the load's timeout, and the checks'). */
export const LOSS_MS = 2_000;

/** The load runs this long before its first window (its own start, the server's first answers). */
export const WARM_UP_MS = 2_000;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The first line of an error's message. */
export const message = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/** How many of `questions` get a NOERROR answer holding their type (or a CNAME) from 127.0.0.1:`port` now. */
export async function answered(port: number, questions: readonly Question[]): Promise<number> {
  const client = dnsClient(port, { timeoutMs: LOSS_MS });
  const ok = await Promise.all(
    questions.map(([name, type]) =>
      client
        .query(name, type)
        .then((r) => r.rcode === 0 && r.answers.some((a) => a.type === type || a.type === 'CNAME'))
        .catch(() => false),
    ),
  );
  return ok.filter(Boolean).length;
}

/** Calls `done` every `everyMs` until it is true (→ true) or `signal` aborts (→ false). */
export async function until(signal: AbortSignal, everyMs: number, done: () => Promise<boolean>): Promise<boolean> {
  while (!signal.aborted) {
    if (await done()) return true;
    await sleep(everyMs);
  }
  return false;
}
