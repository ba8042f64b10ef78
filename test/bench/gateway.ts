import { join } from 'node:path';
import { BENCH_JS, FIXED_ENV, GATEWAY, GRAPHQL_BODY, rps, SUBGRAPH, withChild } from './common';
import { startNode } from './processes';

/**
 * Issue figures: the same federated query, same schema and data — our gateway in-process, and our gateway over the
 * same HTTP subgraph, each against plain @apollo/gateway over that HTTP subgraph.
 */
export async function gatewayVsPlain(): Promise<string[]> {
  // the subgraph service runs for the whole comparison; its data cache warms in the first warm-up
  return withChild(startNode(SUBGRAPH, { ...FIXED_ENV }, '/healthz', ['market']), async (service) => {
    const subgraphUrl = `${service.url}/graphql`;
    const graphql = (url: string) => ({ url: `${url}/graphql`, method: 'POST' as const, body: GRAPHQL_BODY });
    const plain = await withChild(
      startNode(join(BENCH_JS, 'plain-http-gateway.js'), { ...FIXED_ENV, SUBGRAPH_URL: subgraphUrl }, '/'),
      (gw) => rps({ url: gw.url, method: 'POST', body: GRAPHQL_BODY }),
    );
    const measure = (env: Record<string, string>, args: string[] = []) =>
      withChild(startNode(GATEWAY, { ...FIXED_ENV, ...env }, '/healthz', args), (gw) => rps(graphql(gw.url)));
    const inProcess = await measure({});
    const inProcessNoCache = await measure({ RESPONSE_CACHE: 'false' });
    const remote = await measure({}, ['--subgraph', `market=${subgraphUrl}`]);
    const remoteNoCache = await measure({ RESPONSE_CACHE: 'false' }, ['--subgraph', `market=${subgraphUrl}`]);
    const x = (v: number) => `${(v / plain).toFixed(2)}×`;
    return [
      `reference: plain @apollo/gateway over the HTTP market subgraph: ${plain.toFixed(0)} req/s`,
      `our gateway in-process:            ${inProcess.toFixed(0).padStart(6)} req/s  ${x(inProcess)} (goal ≥ 5×: ${inProcess / plain >= 5 ? 'met' : 'NOT met'}); response cache off: ${inProcessNoCache.toFixed(0)} req/s ${x(inProcessNoCache)}`,
      `our gateway over the same subgraph: ${remote.toFixed(0).padStart(6)} req/s  ${x(remote)} (goal ≥ 1.0×: ${remote / plain >= 1 ? 'met' : 'NOT met'}); response cache off: ${remoteNoCache.toFixed(0)} req/s ${x(remoteNoCache)}`,
    ];
  });
}
