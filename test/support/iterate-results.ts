/**
 * Collects `count` results of one operation, started by `start` as an async iterator (as graphql-sse's and
 * graphql-ws's clients run one), bounded by `timeoutMs` (fewer come back when it passes), then completes it.
 */
export async function takeResults<R>(
  start: () => AsyncIterableIterator<R>,
  count: number,
  timeoutMs = 5_000,
): Promise<R[]> {
  const results: R[] = [];
  const it = start();
  const timer = setTimeout(() => void it.return?.(), timeoutMs);
  try {
    for await (const r of it) {
      results.push(r);
      if (results.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await it.return?.();
  }
  return results;
}
