import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, OperationTypeNode } from 'graphql';
import type { GatewayContext } from './context';
import type { OperationCostLimit } from './limits';
import { STREAM_PATH } from './subscriptions/sse-endpoint';

/**
 * Operations Apollo Server must not hand to the executor: an operation name that names no operation (or several
 * unnamed operations) is a 400 with graphql-js's own message, and a subscription POSTed to /graphql gets a 400 that
 * says where subscriptions are served (Apollo cannot run them).
 */
export function operationChecksPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request }) {
          if (!operation) {
            const named = document?.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION) ?? [];
            const message = request.operationName
              ? `Unknown operation named "${request.operationName}".`
              : named.length > 1
                ? 'Must provide operation name if query contains multiple operations.'
                : 'Must provide an operation.';
            throw new GraphQLError(message, {
              extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } },
            });
          }
          if (operation.operation !== OperationTypeNode.SUBSCRIPTION) return;
          throw new GraphQLError(
            `subscriptions are served over graphql-sse at ${STREAM_PATH} (POST the operation there with Accept: text/event-stream), and over WebSocket at /graphql (subprotocol graphql-transport-ws)`,
            {
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            },
          );
        },
      };
    },
  };
}

/**
 * Refuses an operation whose estimated cost is over the limit before anything runs (Apollo Server answers 400). It
 * runs after the operation checks: an operation that names none, or a subscription, gets their error first.
 */
export function costLimitPlugin(limit: OperationCostLimit): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request }) {
          const refused = operation && limit.check(document, operation, request.variables);
          if (refused)
            throw new GraphQLError(refused.message, {
              nodes: refused.nodes,
              extensions: { ...refused.extensions, http: { status: 400 } },
            });
        },
      };
    },
  };
}
