/** The federated graph's face: what the host and the REST interfaces use of planning, execution, subscriptions,
 * caching and limits. Only re-exports. */
export { cacheScopeOf, callerOf, type GatewayContext, type RequestCaller } from './context';
export type {
  Delivery,
  IncrementalDelivery,
  IncrementalItem,
  PendingFragment,
  ResponsePath,
  Subsequent,
} from './incremental';
export { OperationPlanner } from './federation/operation-planner';
export { SupergraphError } from './federation/progressive-override';
export { probeRemoteSubgraph } from './federation/remote-health';
export { formatError } from './format-error';
export { Graph, type GraphOptions, type RunResult } from './graph';
export { type PreparedOperation, prepareOperation } from './prepared-operation';
export { GatewayMetrics } from './metrics';
export { clientStop, watchClient } from './request-signal';
export { ConnectionLimiter, type StreamLimits } from './subscriptions/connection-limits';
export { FederatedSubscriptions } from './subscriptions/federated-subscriptions';
export { InProcessSubscriptions } from './subscriptions/in-process-stream';
export {
  createSubscriptionStream,
  endStream,
  STREAM_PATH,
  type SubscriptionStreamEndpoint,
} from './subscriptions/sse-endpoint';
export {
  createWebSocketEndpoint,
  refuseUpgrade,
  WS_CLOSE,
  WS_PATHS,
  type WebSocketEndpoint,
} from './subscriptions/ws-endpoint';
export {
  DEFAULT_STREAM_BUFFER_LIMITS,
  type StreamBuffer,
  type StreamBufferLimits,
  StreamBuffers,
} from './subscriptions/stream-buffers';
export { ManifestError, TrustedDocuments } from './persisted/manifest';
export {
  type DocumentParams,
  PersistedOperations,
  type Refusal,
  type Resolution,
  searchParamsOf,
  searchWithDocument,
  withDocument,
} from './persisted/persisted-operations';
export { QueryStore } from './persisted/query-store';
export { RedisQueryStore } from './persisted/redis-query-store';
