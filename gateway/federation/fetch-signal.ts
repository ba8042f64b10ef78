import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayContext } from '../context';

type FetchOptions = GraphQLDataSourceProcessOptions<GatewayContext>;

/** A subgraph fetch with the signal that ends its work: its deadline or its request's client gone. */
export type SignalledFetch = FetchOptions & { signal?: AbortSignal };

export function withSignal(options: FetchOptions, signal: AbortSignal): SignalledFetch {
  return { ...options, signal };
}

/** When the fetch's answer is no longer awaited: its own signal, else its request's. */
export function fetchSignal(options: FetchOptions): AbortSignal | undefined {
  const own = (options as SignalledFetch).signal;
  if (own) return own;
  return options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options.context.signal : undefined;
}

/**
 * The signal of one fetch: it fires when the fetch expires (its deadline) or when its request's signal fires. A
 * listener rather than AbortSignal.any: one fetch of many per request, released as soon as the fetch ends.
 */
export class FetchStop {
  private readonly controller = new AbortController();
  private readonly request: AbortSignal | undefined;
  private readonly follow = (): void => this.controller.abort(this.request?.reason);

  constructor(options: FetchOptions) {
    this.request = fetchSignal(options);
    if (this.request?.aborted) this.follow();
    else this.request?.addEventListener('abort', this.follow, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  expire(reason: Error): void {
    this.controller.abort(reason);
  }

  release(): void {
    this.request?.removeEventListener('abort', this.follow);
  }
}
