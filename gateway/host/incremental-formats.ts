import type { GraphQLFormattedError } from 'graphql';
import type { Delivery, IncrementalItem, PendingFragment, ResponsePath, Subsequent } from '../graph';

/**
 * The two wire formats of `@defer` results a client may ask for (docs/gateway.md, "@defer"):
 * - `deferSpec=20220824`, what Apollo Router writes and Apollo Client's Defer20220824Handler, GraphiQL and meros
 *   read: later payloads carry `incremental` items with `data`, `path` and `label`;
 * - `incrementalSpec=v0.2`, graphql-js 17's format (alpha 9), which Apollo Client's GraphQL17Alpha9Handler reads:
 *   every deferred fragment at one object is announced in `pending` with an id (in the initial result, or in the
 *   payload that delivers the fragment enclosing it), its data comes in `incremental` under that id, and `completed`
 *   says when it is done (with its errors when a non-null field in it was null).
 */
export type IncrementalFormat = 'deferSpec=20220824' | 'incrementalSpec=v0.2';

/** A payload after the first: `hasNext` says whether more follow. */
export type Payload = { hasNext: boolean } & Record<string, unknown>;

/** The initial result's extra fields (besides `hasNext: true`) and the payloads after it, in one format. */
export interface FormattedDelivery {
  initial: Record<string, unknown>;
  payloads: AsyncIterable<Payload>;
}

export function formatDelivery(format: IncrementalFormat, later: Subsequent): FormattedDelivery {
  if (format === 'deferSpec=20220824') return { initial: {}, payloads: defer20220824(later.deliveries) };
  const ids = new PendingIds();
  const pending = later.pending.flatMap((p) => ids.announce(p));
  return { initial: { pending }, payloads: incrementalV02(later.deliveries, ids) };
}

async function* defer20220824(deliveries: AsyncIterable<Delivery>): AsyncGenerator<Payload> {
  for await (const step of deliveries) {
    // a step that finished fragments without objects to complete has nothing to say before the last one
    if (step.items.length > 0) yield { hasNext: step.hasNext, incremental: step.items.map((i) => i.item) };
    else if (!step.hasNext) yield { hasNext: false };
  }
}

interface PendingResult {
  id: string;
  path: ResponsePath;
  label?: string;
}

interface CompletedResult {
  id: string;
  errors?: GraphQLFormattedError[];
}

/** The ids of pending fragments by fragment and path, given in announcement order. */
class PendingIds {
  private next = 0;
  private readonly byFragment = new Map<number, Map<string, string>>();

  announce(p: PendingFragment): PendingResult[] {
    return p.paths.map((path) => this.add(p.fragment, path, p.label));
  }

  add(fragment: number, path: ResponsePath, label: string | undefined): PendingResult {
    let paths = this.byFragment.get(fragment);
    if (!paths) this.byFragment.set(fragment, (paths = new Map<string, string>()));
    const id = String(this.next++);
    paths.set(JSON.stringify(path), id);
    return { id, path, ...(label !== undefined ? { label } : {}) };
  }

  idOf(fragment: number, path: ResponsePath): string | undefined {
    return this.byFragment.get(fragment)?.get(JSON.stringify(path));
  }

  /** The fragment's ids, forgotten: nothing more comes for them. */
  take(fragment: number): string[] {
    const ids = [...(this.byFragment.get(fragment)?.values() ?? [])];
    this.byFragment.delete(fragment);
    return ids;
  }
}

async function* incrementalV02(deliveries: AsyncIterable<Delivery>, ids: PendingIds): AsyncGenerator<Payload> {
  for await (const step of deliveries) {
    const pending = step.pending.flatMap((p) => ids.announce(p));
    const incremental: { id: string; data: Record<string, unknown>; errors?: GraphQLFormattedError[] }[] = [];
    const failed = new Map<string, GraphQLFormattedError[]>();
    for (const { fragment, item } of step.items) {
      // an object the fragment was not announced at (not expected): announced here, before its data
      const id = ids.idOf(fragment, item.path) ?? announceLate(ids, pending, fragment, item);
      if (item.data === null) failed.set(id, item.errors ?? []);
      else incremental.push({ id, data: item.data, ...(item.errors?.length ? { errors: item.errors } : {}) });
    }
    const completed: CompletedResult[] = step.completed.flatMap((fragment) =>
      ids.take(fragment).map((id) => {
        const errors = failed.get(id);
        return errors ? { id, errors } : { id };
      }),
    );
    yield {
      ...(pending.length ? { pending } : {}),
      ...(incremental.length ? { incremental } : {}),
      ...(completed.length ? { completed } : {}),
      hasNext: step.hasNext,
    };
  }
}

function announceLate(ids: PendingIds, pending: PendingResult[], fragment: number, item: IncrementalItem): string {
  const announced = ids.add(fragment, item.path, item.label);
  pending.push(announced);
  return announced.id;
}
