import type { GraphQLDataSource } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type {
  GatewayExecutionResult,
  GatewayExecutor,
  GatewayGraphQLRequestContext,
} from '@apollo/server-gateway-interface';
import { execute, GraphQLError, OperationTypeNode, validate } from 'graphql';
import type { Subgraph } from '../../../subgraphs/subgraph';
import type { GatewayContext } from '../context';
import type { OperationPlanner, PreparedOperation } from './operation-planner';
import { withService } from './subgraph-errors';

/** Where a whole operation can go at once: the in-process subgraph that owns all of it. */
interface Route {
  subgraph: string;
}

/**
 * Runs operations that one in-process subgraph answers entirely — the query plan is a single fetch of that
 * subgraph with nothing required from elsewhere — by executing the client's own document on the subgraph's schema,
 * through the same (timed, logged) data source the gateway fetches it with. The result is what the plan would
 * produce, without building the plan's operation, executing the plan and re-shaping the subgraph's answer: most
 * of the cost of an uncached request. Everything else goes to the federated executor.
 */
export class SingleSubgraphExecutor {
  /** Per prepared operation (one per document and label set, held by the planner's bounded cache). */
  private readonly routes = new WeakMap<PreparedOperation, Route | false>();
  /** Operations run here and handed to the federated executor (tests and metrics read it). */
  readonly stats = { direct: 0, planned: 0 };
  /** Off: every operation goes to the federated executor (tests compare the two). */
  enabled = true;

  constructor(
    private readonly planner: OperationPlanner,
    private readonly local: ReadonlyMap<string, Subgraph>,
    private readonly dataSources: ReadonlyMap<string, GraphQLDataSource<GatewayContext>>,
  ) {}

  /** Wraps the federated executor: a routable operation runs here, every other one there. */
  wrap(fallback: GatewayExecutor): GatewayExecutor {
    return async (requestContext) => {
      const route = this.enabled && (await this.route(requestContext as GatewayGraphQLRequestContext<GatewayContext>));
      if (!route) {
        this.stats.planned++;
        return fallback(requestContext);
      }
      this.stats.direct++;
      return this.execute(route, requestContext as GatewayGraphQLRequestContext<GatewayContext>);
    };
  }

  private async route(rc: GatewayGraphQLRequestContext<GatewayContext>): Promise<Route | false> {
    let prepared: PreparedOperation;
    try {
      // the request's override labels: the federated executor, should it run it, plans with the same ones
      prepared = await this.planner.prepareRequest(rc);
    } catch {
      return false; // the federated executor reports it
    }
    let route = this.routes.get(prepared);
    if (route === undefined) this.routes.set(prepared, (route = this.findRoute(rc, prepared)));
    return route;
  }

  private findRoute(rc: GatewayGraphQLRequestContext<GatewayContext>, prepared: PreparedOperation): Route | false {
    // Introspection is answered from the API schema by the gateway itself, never by a subgraph.
    if (prepared.operation.operation === OperationTypeNode.SUBSCRIPTION || prepared.introspection) return false;
    // @defer: the federated executor delivers deferred fragments apart (or inline) itself
    if (prepared.shape.defers.length > 0) return false;
    const node = prepared.plan.root;
    if (node?.kind !== 'fetch' || node.entities || node.outputRewrites) return false;
    const subgraph = this.local.get(node.serviceName);
    if (!subgraph || !this.dataSources.has(node.serviceName)) return false;
    // The client's document must mean the same on the subgraph's schema (it is valid on the API schema already).
    if (validate(subgraph.schema, rc.document).length > 0) return false;
    return { subgraph: node.serviceName };
  }

  /** The operation executed over the API schema with every root field resolving to null (synchronous). */
  private nulledRootFields(rc: GatewayGraphQLRequestContext<GatewayContext>): unknown {
    const result = execute({
      schema: this.planner.apiSchema,
      document: rc.document,
      operationName: rc.operationName,
      variableValues: rc.request.variables,
      rootValue: {},
      fieldResolver: () => null,
    });
    return 'then' in result ? null : (result.data ?? null);
  }

  private async execute(
    route: Route,
    rc: GatewayGraphQLRequestContext<GatewayContext>,
  ): Promise<GatewayExecutionResult> {
    const source = this.dataSources.get(route.subgraph) as GraphQLDataSource<GatewayContext>;
    const response = await source.process({
      kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
      request: { query: rc.source, variables: rc.request.variables, operationName: rc.operationName ?? undefined },
      incomingRequestContext: rc,
      context: rc.context,
      document: rc.document,
    });
    const errors = response.errors?.map((e) => {
      const formatted = withService(e, route.subgraph);
      return new GraphQLError(formatted.message, { path: formatted.path, extensions: formatted.extensions });
    });
    if (!errors?.length) return { data: response.data };
    // A fetch that failed whole (timeout, subgraph down) has no data: complete the operation as the federated executor
    // does, each root field null where its type allows it and null bubbling up where not. Without `data` at all,
    // Apollo Server would take the answer for a request error (HTTP 400).
    const data = response.data ?? this.nulledRootFields(rc);
    return { data: data as GatewayExecutionResult['data'], errors };
  }
}
