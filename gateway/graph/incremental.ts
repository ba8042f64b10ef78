import type { GraphQLFormattedError } from 'graphql';

/**
 * Incremental delivery (`@defer`) as the request context and the HTTP layer see it: the executor says what became
 * pending, what each finished deferred fragment brings and when it is done, in no wire format; the HTTP layer writes
 * the format the client asked for (deferSpec=20220824 or incrementalSpec=v0.2, gateway/host/incremental-formats.ts).
 */

export type ResponsePath = (string | number)[];

/** One deferred fragment's data for one object it applies to (as deferSpec=20220824 writes an item). */
export interface IncrementalItem {
  data: Record<string, unknown> | null;
  path: ResponsePath;
  label?: string;
  errors?: GraphQLFormattedError[];
}

/** An item and the deferred fragment (its id in the operation) it belongs to. */
export interface DeliveredItem {
  fragment: number;
  item: IncrementalItem;
}

/** A deferred fragment that became pending: the paths of the objects of the sent data it will complete. */
export interface PendingFragment {
  fragment: number;
  label?: string;
  paths: ResponsePath[];
}

/** One step of delivery after the initial result. */
export interface Delivery {
  hasNext: boolean;
  /** Fragments that became pending in this step: their enclosing deferred fragment is delivered in it. */
  pending: PendingFragment[];
  /** The items of the fragments finished in this step, in order (an enclosing fragment's before its nested ones). */
  items: DeliveredItem[];
  /** The fragments finished in this step: nothing more comes for any of their pending paths. */
  completed: number[];
}

/** What is delivered after the initial result, and how to stop the work behind it (the client went away). */
export interface Subsequent {
  /** The fragments pending with the initial result (those not nested in another active deferred fragment). */
  pending: PendingFragment[];
  deliveries: AsyncIterable<Delivery>;
  stop(): void;
}

/**
 * Set in a request's context by the HTTP layer when the client accepts `multipart/mixed`: the executor then runs
 * active `@defer` fragments apart and leaves what comes after the initial result here.
 */
export interface IncrementalDelivery {
  later?: Subsequent;
}
