import type { GraphQLSchema } from 'graphql';

/**
 * How long the data a subgraph operation read may be reused, in seconds. Each resolver that reads cacheable data
 * restricts it; anything that reads private or uncacheable data sets 0. `undefined` after execution means the
 * operation read nothing that declared itself cacheable, which the gateway treats as 0.
 */
export class CacheHint {
  maxAge: number | undefined = undefined;

  restrict(maxAgeSeconds: number): void {
    const age = Math.max(0, Math.floor(maxAgeSeconds));
    this.maxAge = this.maxAge === undefined ? age : Math.min(this.maxAge, age);
  }
}

/** Per-request context handed to every subgraph's resolvers. */
export interface SubgraphContext {
  cacheHint: CacheHint;
  requestId: string;
  /**
   * The caller's `Authorization` header as sent, uninterpreted: each subgraph decides what it accepts
   * (docs/design.md, "Identity"). Never log it. Absent for anonymous callers and internal fetches.
   */
  authorization?: string;
  /** The caller's network address as the gateway saw it (login throttling), when known. */
  clientAddress?: string;
  /**
   * Fires when nobody awaits the answer any more: the fetch's deadline passed or the caller went away. Long reads
   * (listings, exports, zone transfers) stop at their next check. Never given to a mutation: a write runs to its end.
   */
  signal?: AbortSignal;
}

export interface SubgraphHealth {
  status: 'ok' | 'degraded' | 'down';
  [detail: string]: unknown;
}

/** A subgraph as the gateway (or a standalone subgraph server) runs it in-process. */
export interface Subgraph<TContext extends SubgraphContext = SubgraphContext> {
  readonly name: string;
  readonly schema: GraphQLSchema;
  createContext(base: SubgraphContext): TContext;
  health(): Promise<SubgraphHealth>;
  close(): Promise<void>;
}
