import { recordSummary, type GqlRecordSummary } from './render';

/** One page of a zone's records as the fixed page operation reads it, with the zone's version read with it. */
export interface ListingPage {
  /** The zone's ETag when the page was read: it changes with every change of the zone. */
  etag: string;
  zone: string;
  nextCursor: string | null;
  records: GqlRecordSummary[];
}

/** A whole listing, rendered, and the zone version it shows (null: the zone kept changing while it was read). */
export interface WholeListing {
  body: string;
  etag: string | null;
}

/** Walks made before a listing of a zone that keeps changing is answered as it stands. */
const ATTEMPTS = 3;

/**
 * The whole listing of a zone (`GET …/records` without `limit`, as the seed has it) from pages of the graph, each
 * page one operation bounded like any other. Pages follow the cursor; a walk during which the zone changed shows no
 * single version, so it is walked again (at most ATTEMPTS times: then every record that stayed is in it once, and
 * it is not cached). Stops between pages once `signal` fires (the client went away).
 */
export async function wholeListing(
  readPage: (cursor: string | null) => Promise<ListingPage>,
  signal?: AbortSignal,
): Promise<WholeListing> {
  for (let attempt = 1; ; attempt++) {
    const first = await readPage(null);
    const records = [...first.records];
    let consistent = true;
    for (let page = first; page.nextCursor !== null;) {
      signal?.throwIfAborted();
      page = await readPage(page.nextCursor);
      consistent &&= page.etag === first.etag;
      if (!consistent && attempt < ATTEMPTS) break; // walked again from the start
      for (const r of page.records) records.push(r);
    }
    if (consistent || attempt >= ATTEMPTS) {
      const body = JSON.stringify({ zone: first.zone, records: records.map(recordSummary) });
      return { body, etag: consistent ? first.etag : null };
    }
    signal?.throwIfAborted();
  }
}
