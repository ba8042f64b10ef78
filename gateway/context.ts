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
}

export function createGatewayContext(requestId: string, log: Logger): GatewayContext {
  return { requestId, log, cachePolicy: new CacheHint() };
}
