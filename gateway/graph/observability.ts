import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from './context';
import type { GatewayMetrics } from './metrics';

/**
 * One log line per GraphQL operation (request id, operation, duration, subgraph fetches, error codes) and the
 * operation metrics. Variables and headers are never logged: they may carry credentials.
 */
export function observabilityPlugin(metrics: GatewayMetrics): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart(start) {
      const started = performance.now();
      return {
        async willSendResponse(rc) {
          const ms = performance.now() - started;
          const body = rc.response.body;
          const errors = body.kind === 'single' ? (body.singleResult.errors ?? []) : [];
          const codes = errors.map((e) =>
            typeof e.extensions?.code === 'string' ? e.extensions.code : 'INTERNAL_SERVER_ERROR',
          );
          for (const code of codes) metrics.errors.inc({ code });
          const operation = metrics.operationLabel(rc.operationName);
          const type = rc.operation?.operation ?? 'unknown';
          const cached = rc.contextValue.fromCache ? 'true' : 'false';
          metrics.operationDuration.observe({ operation, type, cached }, ms / 1000);
          start.contextValue.log.info(
            {
              reqId: rc.contextValue.requestId,
              operationName: rc.operationName ?? null,
              type,
              ms: Math.round(ms * 10) / 10,
              cached: rc.contextValue.fromCache === true,
              fetches: rc.contextValue.fetches,
              errors: codes.length ? codes : undefined,
            },
            'graphql',
          );
        },
      };
    },
  };
}
