import type { Logger } from './logger';
import { CacheHint } from '../subgraphs/subgraph';

/** Context of one incoming request at the gateway. */
export interface GatewayContext {
  requestId: string;
  log: Logger;
  /** How long the whole response may be reused: the minimum over every subgraph fetch. */
  cachePolicy: CacheHint;
  /** Set when the response came from the response cache. */
  fromCache?: boolean;
  /** Subgraph fetches made for this request (for the request log line). */
  fetches: SubgraphFetch[];
}

export interface SubgraphFetch {
  subgraph: string;
  ms: number;
  ok: boolean;
}

export function createGatewayContext(requestId: string, log: Logger): GatewayContext {
  return { requestId, log, cachePolicy: new CacheHint(), fetches: [] };
}
