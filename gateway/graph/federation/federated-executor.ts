import type { GraphQLDataSource } from '@apollo/gateway';
import type { GatewayExecutionResult, GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import { executeSync, GraphQLError } from 'graphql';
import type { GatewayContext } from '../context';
import type { OperationPlanner, PreparedOperation } from './operation-planner';
import { runPlan, type DataObject, type PlanRun } from './plan-executor';
import type { PlanStep } from './query-plan';
import { DeferredExecution } from './deferred-execution';

/** What running a prepared operation's plan needs besides the plan. */
export interface RunRequest {
  requestContext: GatewayGraphQLRequestContext<GatewayContext>;
  variables: Readonly<Record<string, unknown>>;
}

/**
 * Our executor of federated operations (queries and mutations; subscriptions complete their events with it): the
 * operation's plan runs over the subgraphs' data sources, then the fetched data is shaped as the client asked.
 * Results and errors are those of Apollo's executor: subgraph errors at the client's paths naming their subgraph,
 * partial data when a fetch fails, and values that break their types reported as `valueCompletion`.
 */
export class FederatedExecutor {
  constructor(
    private readonly planner: OperationPlanner,
    private readonly sources: ReadonlyMap<string, GraphQLDataSource<GatewayContext>>,
  ) {}

  async execute(rc: GatewayGraphQLRequestContext<GatewayContext>): Promise<GatewayExecutionResult> {
    let prepared: PreparedOperation;
    try {
      prepared = await this.planner.prepareRequest(rc);
    } catch (err) {
      return { errors: [new GraphQLError(err instanceof Error ? err.message : String(err))] };
    }
    const variables = rc.request.variables ?? {};
    if (prepared.shape.defers.length > 0 && rc.context.incremental) {
      const result = await this.runDeferred(prepared, { requestContext: rc, variables });
      if (result) return result;
    }
    return this.run(prepared, prepared.plan.root, { requestContext: rc, variables }, {});
  }

  /** Runs `step` (when there is one) on `data` and shapes the result as the prepared operation asks. */
  async run(
    prepared: PreparedOperation,
    step: PlanStep | undefined,
    request: RunRequest,
    data: DataObject,
  ): Promise<GatewayExecutionResult> {
    const { shape } = prepared;
    const run: PlanRun = {
      sources: this.sources,
      requestContext: request.requestContext,
      variables: request.variables,
      conditions: shape.conditionValues(request.variables),
      data,
      errors: [],
    };
    if (step) await runPlan(step, run);
    const introspection = prepared.introspection && this.introspect(prepared, request.variables);
    const shaped = shape.apply(run.data, run.conditions, introspection && ((name) => introspection[name]));
    if (run.errors.length > 0) return { data: shaped.data, errors: run.errors };
    // Apollo's executor reports values that break their types apart from errors, and only when nothing else failed.
    if (shaped.errors.length > 0) return { data: shaped.data, extensions: { valueCompletion: shaped.errors } };
    return { data: shaped.data };
  }

  /**
   * Runs an operation with active `@defer` fragments: answers the initial result once its own fetches are done, and
   * leaves the deferred fragments' payloads in the context. Undefined when `if:` turns every one off.
   */
  private async runDeferred(
    prepared: PreparedOperation,
    request: RunRequest,
  ): Promise<GatewayExecutionResult | undefined> {
    const { shape } = prepared;
    const { context } = request.requestContext;
    const conditions = shape.conditionValues(request.variables);
    const active = shape.activeDefers(conditions);
    if (active.size === 0 || !context.incremental) return undefined;
    const run: PlanRun = {
      sources: this.sources,
      requestContext: request.requestContext,
      variables: request.variables,
      conditions,
      data: {},
      errors: [],
    };
    const execution = new DeferredExecution(shape, prepared.plan.root, run, active);
    await execution.primary();
    // the initial result is not the whole answer: never cached as if it were
    context.cachePolicy.restrict(0);
    const introspection = prepared.introspection && this.introspect(prepared, request.variables);
    const answers = introspection ? (name: string) => introspection[name] : undefined;
    const shaped = shape.apply(run.data, conditions, answers, active);
    if (shaped.data) {
      const initial = shaped.data;
      context.incremental.later = {
        pending: execution.initialPending(initial),
        deliveries: execution.deliveries(initial, answers),
        stop: () => execution.stop(),
      };
    } else execution.stop();
    const errors = [...run.errors];
    if (errors.length > 0) return { data: shaped.data, errors };
    if (shaped.errors.length > 0) return { data: shaped.data, extensions: { valueCompletion: shaped.errors } };
    return { data: shaped.data };
  }

  private introspect(prepared: PreparedOperation, variables: Readonly<Record<string, unknown>>) {
    const result = executeSync({
      schema: this.planner.apiSchema,
      document: prepared.introspection as NonNullable<PreparedOperation['introspection']>,
      variableValues: variables,
      rootValue: {},
    });
    return (result.data ?? {}) as Record<string, unknown>;
  }
}
