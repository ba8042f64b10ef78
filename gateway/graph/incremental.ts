import type { GraphQLFormattedError } from 'graphql';

/** Incremental delivery (`@defer`) as the request context and the HTTP layer see it. */

/** One deferred fragment's data for one object, as the incremental delivery format (deferSpec=20220824) says. */
export interface IncrementalItem {
  data: Record<string, unknown> | null;
  path: (string | number)[];
  label?: string;
  errors?: GraphQLFormattedError[];
}

/** A payload after the first. */
export interface SubsequentPayload {
  hasNext: boolean;
  incremental?: IncrementalItem[];
}

/** What is delivered after the initial result, and how to stop the work behind it (the client went away). */
export interface Subsequent {
  payloads: AsyncIterable<SubsequentPayload>;
  stop(): void;
}

/**
 * Set in a request's context by the HTTP layer when the client accepts `multipart/mixed`: the executor then runs
 * active `@defer` fragments apart and leaves what comes after the initial result here.
 */
export interface IncrementalDelivery {
  later?: Subsequent;
}
