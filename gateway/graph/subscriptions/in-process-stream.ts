import { createSourceEventStream, execute, type DocumentNode, type ExecutionResult } from 'graphql';
import { CacheHint, type Subgraph } from '../../../subgraphs/subgraph';
import { mapStream, type Stream } from '../../../subgraphs/async-streams';
import { PreparedDocuments } from '../federation/prepared-documents';

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Who opened a subscription: results are shared only between subscribers with the same share key. */
export interface SubscriptionCaller {
  requestId: string;
  /** Subscribers with equal keys present the same credentials and may share executions ('' for anonymous ones). */
  shareKey: string;
  authorization?: string;
}

/**
 * Opens subscriptions on a subgraph that runs in this process. Each subscriber gets its own source stream (so its
 * first events — the current prices — come at once, whenever it joins), but every subscriber of the same event
 * payload and operation shares ONE execution of it: the subgraph hands the same payload object to all of them, and
 * results are memoised by that object. 10 000 subscribers of one ticker cost one execution per tick, not 10 000.
 */
export class InProcessSubscriptions {
  private readonly prepared: PreparedDocuments;
  private readonly results = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

  constructor(readonly subgraph: Subgraph) {
    this.prepared = new PreparedDocuments(subgraph.schema);
  }

  async open(
    operation: string,
    variables: Record<string, unknown>,
    caller: SubscriptionCaller,
  ): Promise<Stream<ExecutionResult> | ExecutionResult> {
    const { requestId, shareKey, authorization } = caller;
    const prepared = this.prepared.get(operation);
    if ('errors' in prepared) return { errors: prepared.errors };
    const { document } = prepared;
    const source = await createSourceEventStream({
      schema: this.subgraph.schema,
      document,
      variableValues: variables,
      contextValue: this.subgraph.createContext({ requestId, cacheHint: new CacheHint(), authorization }),
    });
    if (!isAsyncIterable(source)) return source;
    const key = `${operation}\u0000${JSON.stringify(variables)}\u0000${shareKey}`;
    return mapStream(source[Symbol.asyncIterator](), (payload) =>
      this.resultOf(payload, key, document, variables, caller),
    );
  }

  /** Executes the operation for one event payload, once per payload object and operation. */
  private resultOf(
    payload: unknown,
    key: string,
    document: DocumentNode,
    variables: Record<string, unknown>,
    caller: SubscriptionCaller,
  ): Promise<ExecutionResult> {
    // A fresh context per event: loaders cache for their context's lifetime, and a subscription lives for hours.
    const run = () =>
      Promise.resolve(
        execute({
          schema: this.subgraph.schema,
          document,
          rootValue: payload,
          variableValues: variables,
          contextValue: this.subgraph.createContext({
            requestId: caller.requestId,
            cacheHint: new CacheHint(),
            authorization: caller.authorization,
          }),
        }),
      );
    if (typeof payload !== 'object' || payload === null) return run();
    let byOperation = this.results.get(payload);
    if (!byOperation) {
      byOperation = new Map();
      this.results.set(payload, byOperation);
    }
    let result = byOperation.get(key);
    if (!result) {
      result = run();
      byOperation.set(key, result);
    }
    return result;
  }
}
