import type { ApolloServerPlugin } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { GatewayContext } from './context';

export interface CachedResponse {
  result: FormattedExecutionResult;
  expiresAt: number;
  /** Renderings of `result` made by REST adapters, kept as long as the result itself. */
  derived: Map<string, string>;
}

/**
 * Whole-response cache for queries whose every subgraph fetch declared its data cacheable (see CacheHint). The
 * GraphQL endpoint (through the plugin) and the REST adapters share it, keyed by query hash, operation name and
 * variables. A response is kept no longer than its shortest-lived part, and never when it has errors.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse> | undefined;

  constructor(maxEntries: number, private readonly now: () => number = Date.now) {
    this.entries = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
  }

  get enabled(): boolean {
    return this.entries !== undefined;
  }

  static key(queryHash: string, operationName: string | null | undefined, variables: Record<string, unknown> | undefined): string {
    return `${queryHash}|${operationName ?? ''}|${variables ? JSON.stringify(variables) : ''}`;
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
    this.entries.set(key, { result, expiresAt: this.now() + maxAgeSeconds * 1000, derived: new Map() });
  }

  /** Seconds an entry stays fresh (for Cache-Control: max-age). */
  remaining(entry: CachedResponse): number {
    return Math.max(0, Math.floor((entry.expiresAt - this.now()) / 1000));
  }

  plugin(): ApolloServerPlugin<GatewayContext> {
    const cache = this;
    return {
      async requestDidStart() {
        let key: string | undefined;
        return {
          async responseForOperation(rc) {
            if (!cache.enabled || rc.operation.operation !== 'query' || !rc.queryHash) return null;
            key = ResponseCache.key(rc.queryHash, rc.request.operationName, rc.request.variables);
            const hit = cache.get(key);
            if (!hit) return null;
            rc.contextValue.fromCache = true;
            rc.response.http.headers.set('cache-control', `public, max-age=${cache.remaining(hit)}`);
            return { http: rc.response.http, body: { kind: 'single', singleResult: hit.result } };
          },
          async willSendResponse(rc) {
            if (!key || rc.contextValue.fromCache || rc.response.body.kind !== 'single') return;
            const maxAge = rc.contextValue.cachePolicy.maxAge ?? 0;
            const result = rc.response.body.singleResult;
            if (maxAge > 0 && !result.errors?.length) {
              cache.set(key, result, maxAge);
              rc.response.http.headers.set('cache-control', `public, max-age=${maxAge}`);
            }
          },
        };
      },
    };
  }
}
