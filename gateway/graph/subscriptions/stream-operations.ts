import { LRUCache } from 'lru-cache';
import {
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { mapStream, type Stream } from '../../../subgraphs/async-streams';
import type { TraceCarrier } from '../context';
import type { SubscriptionRequest } from './federated-subscriptions';

/** A query or mutation sent over a streaming endpoint (graphql-sse or graphql-ws), with its caller. */
export interface StreamOperation {
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  requestId: string;
  authorization: string | undefined;
  /** The caller's network address. */
  address: string | undefined;
  /** Whose trace the operation continues (the request's headers; only read when tracing is on). */
  traceHeaders: TraceCarrier | undefined;
}

/** A result or a stream of results (graphql-js's and the formatted JSON shape are both accepted). */
export type Results = Stream<unknown> | object;

/** What the streaming endpoints run operations with: the same planning and execution as /graphql. */
export interface OperationSource {
  subscribe(request: SubscriptionRequest): Promise<Results>;
  /** Runs queries and mutations sent over the endpoint (the same pipeline as /graphql). */
  execute(operation: StreamOperation): Promise<object>;
  schema: GraphQLSchema;
  validationRules: readonly ValidationRule[];
}

/** Who runs an operation, as both endpoints know it. */
export interface OperationCaller {
  requestId: string;
  /** The caller's Authorization (header or connection_init payload), passed on to the subgraphs; never logged. */
  authorization: string | undefined;
  address: string | undefined;
  /** The operation's text as sent (plans are cached by it). */
  query: string;
  /** Subscribers presenting the same credentials may share event executions. */
  shareKey: string;
  /**
   * Whose trace the operation continues: the request's headers (SSE); on WebSocket the subscribe message's
   * `extensions`, else the connection_init payload's, else the upgrade's. Only `traceparent` and `tracestate` are
   * read, and only when tracing is on.
   */
  traceHeaders: TraceCarrier | undefined;
}

/** The parts of graphql-js's execution arguments an operation is run with. */
export interface OperationArgs {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
}

export interface StreamOperations {
  /** The operation's parsed document, one per text (shared by every subscriber of it), or its syntax error. */
  document(query: string): DocumentNode | GraphQLError;
  /** Validation against the schema and the graph's rules, once per operation text. */
  validate(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[];
  /** Opens a subscription through the federated engine; `onEnd` runs once when its stream ends, however it ends. */
  subscribe(
    args: OperationArgs,
    caller: OperationCaller,
    onEnd?: () => void,
  ): Promise<Stream<ExecutionResult> | ExecutionResult>;
  /** Runs a query or mutation through the same pipeline as /graphql. */
  execute(args: OperationArgs, caller: OperationCaller): Promise<ExecutionResult>;
  /** Subscriptions running now. */
  readonly running: number;
}

function isStream(value: Results): value is Stream<unknown> {
  return typeof (value as Stream<unknown>).next === 'function';
}

/**
 * The operation pipeline both streaming endpoints share: parsing and validation cached by operation text (10 000
 * subscribers of one operation parse and validate it once, and hold one document), subscriptions through the federated
 * subscription engine, queries and mutations through the /graphql pipeline.
 */
export function createStreamOperations(source: OperationSource): StreamOperations {
  const rules = [...specifiedRules, ...source.validationRules];
  const validated = new LRUCache<string, readonly GraphQLError[]>({ max: 1_000 });
  const parsed = new LRUCache<string, DocumentNode>({ max: 1_000 });
  let running = 0;
  return {
    document(query) {
      let document = parsed.get(query);
      if (document) return document;
      try {
        document = parse(query);
      } catch (err) {
        return err instanceof GraphQLError ? err : new GraphQLError(String(err));
      }
      parsed.set(query, document);
      return document;
    },
    validate(schema, document) {
      const text = document.loc?.source.body;
      const known = text === undefined ? undefined : validated.get(text);
      if (known) return known;
      const errors = validate(schema, document, rules);
      if (text !== undefined) validated.set(text, errors);
      return errors;
    },
    async subscribe(args, caller, onEnd) {
      let result: Results;
      try {
        result = await source.subscribe({
          document: args.document,
          query: caller.query,
          operationName: args.operationName,
          variables: args.variableValues,
          requestId: caller.requestId,
          shareKey: caller.shareKey,
          authorization: caller.authorization,
          traceHeaders: caller.traceHeaders,
        });
      } catch (err) {
        onEnd?.();
        throw err;
      }
      if (!isStream(result)) {
        onEnd?.();
        return result as ExecutionResult;
      }
      running++;
      return mapStream<unknown, ExecutionResult>(
        result,
        (value) => value as ExecutionResult,
        () => {
          running--;
          onEnd?.();
        },
      );
    },
    async execute(args, caller) {
      return await source.execute({
        query: caller.query,
        operationName: args.operationName ?? undefined,
        variables: args.variableValues ?? undefined,
        requestId: caller.requestId,
        authorization: caller.authorization,
        address: caller.address,
        traceHeaders: caller.traceHeaders,
      });
    },
    get running() {
      return running;
    },
  };
}
