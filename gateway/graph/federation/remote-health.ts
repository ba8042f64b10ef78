import type { SubgraphHealth } from '../../../subgraphs/subgraph';

/** Liveness of a subgraph over HTTP: it must answer `{ __typename }` within the timeout. */
export async function probeRemoteSubgraph(url: string, timeoutMs = 2_000): Promise<SubgraphHealth> {
  const started = Date.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json()) as { data?: { __typename?: string } };
    if (!res.ok || body.data?.__typename !== 'Query')
      return { status: 'down', url, error: `answered HTTP ${res.status}` };
    return { status: 'ok', url, ms: Date.now() - started };
  } catch (err) {
    return { status: 'down', url, error: err instanceof Error ? err.message : String(err) };
  }
}
