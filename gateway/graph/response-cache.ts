import type { ApolloServerPlugin } from '@apollo/server';
import {
  OperationTypeNode,
  type DocumentNode,
  type FormattedExecutionResult,
  type OperationDefinitionNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import type { GatewayContext } from './context';
import { activeOf, NO_LABELS } from './federation/progressive-override';

export interface CachedResponse {
  result: FormattedExecutionResult;
  expiresAt: number;
  /** Renderings of `result` (the GraphQL body, REST bodies), kept as long as the result itself. */
  derived: Map<string, string>;
  /** The entry's key, so a rendering added later can be accounted for. */
  key: string;
  /** Bytes the result object holds, estimated from its JSON text. */
  resultBytes: number;
}

export interface ResponseCacheOptions {
  /** Most entries kept; 0 turns the cache off. */
  maxEntries: number;
  /** Most bytes all entries may hold together (results and their renderings). */
  maxBytes: number;
  /** A response larger than this is not cached (one huge answer must not evict everything else). */
  maxEntryBytes: number;
  now?: () => number;
}

/**
 * A parsed JSON object takes about 1.3 bytes of heap per byte of its text (measured on market responses with
 * Node 20); a rendering is a string, one byte per byte of ASCII text. Rounded up so the bound errs on the safe side.
 */
const OBJECT_BYTES_PER_JSON_BYTE = 1.5;

/**
 * The progressive-override labels of requests, from the planner (absent when the supergraph has no percent label):
 * an answer depends on the active labels that can change its operation's plan, so they are part of its key.
 */
export interface OverrideLabelSource {
  /** The request's active labels: rolled once per request and kept on its context, the set its planning uses. */
  active(context: GatewayContext): ReadonlySet<string>;
  /** The labels that can change the plan of an operation, sorted (the planner's, cached by `key`). */
  relevant(document: DocumentNode, operationName: string | null | undefined, key: string): readonly string[];
}

/** What a request to an operation is keyed on besides its scope, hash and name: learned at its first lookup. */
interface KeyParts {
  /** The variables it declares. */
  names: readonly string[];
  /** The percent labels that can change its plan, sorted (none without override labels). */
  labels: readonly string[];
}

/** The variable names an operation declares (graphql-js refuses unused ones, so these are the ones it uses). */
export function declaredVariables(operation: OperationDefinitionNode): readonly string[] {
  return (operation.variableDefinitions ?? []).map((v) => v.variable.name.value);
}

/**
 * Whole-response cache for queries whose every subgraph fetch declared its data cacheable (see CacheHint). The
 * GraphQL endpoint (through the plugin) and the REST adapters share it. An entry is keyed by query hash, operation
 * name and the values of the variables the operation declares — variables it does not use change nothing and are
 * not part of the key — and by the request's active progressive-override labels that can change the operation's
 * plan (a field served by another subgraph is another answer). It is kept no longer than its shortest-lived part,
 * never when it has errors, and the cache is bounded in bytes as well as entries.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse> | undefined;
  /** Declared variable names and relevant labels per operation (`hash|name`), learned when it is first looked up. */
  private readonly declared = new LRUCache<string, KeyParts>({ max: 10_000 });
  private readonly now: () => number;

  constructor(
    private readonly options: ResponseCacheOptions,
    private readonly overrides?: OverrideLabelSource,
  ) {
    this.now = options.now ?? Date.now;
    this.entries =
      options.maxEntries > 0 && options.maxBytes > 0
        ? new LRUCache({
            max: options.maxEntries,
            maxSize: options.maxBytes,
            sizeCalculation: (entry) => ResponseCache.bytesOf(entry),
          })
        : undefined;
  }

  get enabled(): boolean {
    return this.entries !== undefined;
  }

  /** Bytes held by all entries (tests and metrics). */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  private static bytesOf(entry: CachedResponse): number {
    let bytes = entry.resultBytes + entry.key.length;
    for (const text of entry.derived.values()) bytes += text.length;
    return Math.max(1, bytes);
  }

  /**
   * The key of one request. Only declared variables count, by name in declaration order (so the order of the
   * client's JSON keys does not matter); an absent variable differs from one given as null (defaults apply).
   * `labels`: the request's active override labels that can change the plan, sorted; none adds nothing to the key.
   */
  static key(
    scope: string,
    queryHash: string,
    operationName: string | null | undefined,
    names: readonly string[],
    variables: Readonly<Record<string, unknown>> | null | undefined,
    labels: readonly string[] = NO_LABELS,
  ): string {
    const values = names.map((name) => (variables && Object.hasOwn(variables, name) ? [variables[name]] : []));
    const key = `${scope}|${queryHash}|${operationName ?? ''}|${JSON.stringify(values)}`;
    // after the values' JSON (which ends in `]`): a percent label has no `]` nor `,`
    return labels.length === 0 ? key : `${key}|${labels.join(',')}`;
  }

  /**
   * The key of a request to an operation whose variables (and relevant override labels) are known from an earlier
   * request; undefined when not, or when its labels matter and the request's `active` ones are not given.
   */
  keyOf(
    scope: string,
    queryHash: string,
    operationName: string | null | undefined,
    variables: Readonly<Record<string, unknown>> | null | undefined,
    active?: ReadonlySet<string>,
  ): string | undefined {
    const parts = this.declared.get(`${queryHash}|${operationName ?? ''}`);
    if (!parts || (parts.labels.length > 0 && !active)) return undefined;
    const labels = active ? activeOf(parts.labels, active) : NO_LABELS;
    return ResponseCache.key(scope, queryHash, operationName, parts.names, variables, labels);
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.entries?.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries?.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, result: FormattedExecutionResult, maxAgeSeconds: number): void {
    if (!this.entries || maxAgeSeconds <= 0 || result.errors?.length) return;
    const body = `${JSON.stringify(result)}\n`;
    const entry: CachedResponse = {
      result,
      expiresAt: this.now() + maxAgeSeconds * 1000,
      derived: new Map([['graphql', body]]),
      key,
      resultBytes: Math.ceil(body.length * OBJECT_BYTES_PER_JSON_BYTE),
    };
    if (ResponseCache.bytesOf(entry) > this.options.maxEntryBytes) return;
    this.entries.set(key, entry);
  }

  /** A rendering of an entry's result, made once and kept (and counted) with the entry. */
  derive(entry: CachedResponse, name: string, render: () => string): string {
    const known = entry.derived.get(name);
    if (known !== undefined) return known;
    const text = render();
    entry.derived.set(name, text);
    // Stored again so the LRU counts the rendering (it sizes a value only when it is set, and not when the same
    // value is set twice); an entry grown past the per-entry bound is dropped instead.
    if (this.entries?.peek(entry.key) === entry) {
      this.entries.delete(entry.key);
      if (ResponseCache.bytesOf(entry) <= this.options.maxEntryBytes) this.entries.set(entry.key, entry);
    }
    return text;
  }

  /** Seconds an entry stays fresh (for Cache-Control: max-age). */
  remaining(entry: CachedResponse): number {
    return Math.max(0, Math.floor((entry.expiresAt - this.now()) / 1000));
  }

  plugin(): ApolloServerPlugin<GatewayContext> {
    return {
      requestDidStart: async () => {
        let key: string | undefined;
        return {
          responseForOperation: async (rc) => {
            if (!this.enabled || rc.operation?.operation !== OperationTypeNode.QUERY || !rc.queryHash) return null;
            const names = declaredVariables(rc.operation);
            const overrides = this.overrides;
            const relevant = overrides?.relevant(rc.document, rc.operationName, rc.queryHash) ?? NO_LABELS;
            this.declared.set(`${rc.queryHash}|${rc.request.operationName ?? ''}`, { names, labels: relevant });
            key = ResponseCache.key(
              rc.contextValue.cacheScope,
              rc.queryHash,
              rc.request.operationName,
              names,
              rc.request.variables,
              // the context's roll: the one its planning uses, should the answer not be cached
              overrides && relevant.length > 0 ? activeOf(relevant, overrides.active(rc.contextValue)) : NO_LABELS,
            );
            const hit = this.get(key);
            if (!hit) return null;
            rc.contextValue.fromCache = true;
            rc.response.http.headers.set('cache-control', `public, max-age=${this.remaining(hit)}`);
            return { http: rc.response.http, body: { kind: 'single', singleResult: hit.result } };
          },
          willSendResponse: async (rc) => {
            if (!key || rc.contextValue.fromCache || rc.response.body.kind !== 'single') return;
            const maxAge = rc.contextValue.cachePolicy.maxAge ?? 0;
            const result = rc.response.body.singleResult;
            if (maxAge > 0 && !result.errors?.length) {
              this.set(key, result, maxAge);
              rc.response.http.headers.set('cache-control', `public, max-age=${maxAge}`);
            }
          },
        };
      },
    };
  }
}
