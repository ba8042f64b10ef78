import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { Span } from '@opentelemetry/api';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayContext } from '../context';
import { StopSource, type Stop } from '../request-signal';

type FetchOptions = GraphQLDataSourceProcessOptions<GatewayContext>;

/** A subgraph fetch with what ends its work (its deadline or its request's client gone) and its span, if traced. */
export type StoppableFetch = FetchOptions & { stop?: Stop; span?: Span };

export function withStop(options: FetchOptions, stop: Stop, span?: Span): StoppableFetch {
  return { ...options, stop, span };
}

/** The fetch's span, when tracing is on (the remote source sends its traceparent and records the HTTP status). */
export function fetchSpan(options: FetchOptions): Span | undefined {
  return (options as StoppableFetch).span;
}

/** What stops the fetch's work (its answer no longer awaited): its own stop, else its request's. */
export function fetchStop(options: FetchOptions): Stop | undefined {
  const own = (options as StoppableFetch).stop;
  if (own) return own;
  return options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options.context.stop : undefined;
}

/**
 * The stop of one fetch: when the fetch expires (its deadline) or when its request's stop fires. Its AbortSignal is
 * made only when the fetch's work asks for one; released as soon as the fetch ends.
 */
export class FetchStop extends StopSource {
  private readonly unfollow: () => void;

  constructor(options: FetchOptions) {
    super();
    this.unfollow = fetchStop(options)?.onStop((reason) => this.stop(reason)) ?? (() => {});
  }

  expire(reason: Error): void {
    this.stop(reason);
  }

  release(): void {
    this.unfollow();
  }
}
