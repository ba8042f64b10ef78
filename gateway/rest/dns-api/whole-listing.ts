import { recordSummary, type GqlRecordSummary } from './render';
import { PagedBody } from './paged-body';
import type { SharedPage, SharedPages } from './shared-pages';

/** One page of a zone's records as the fixed page operation reads it, with the zone's version read with it. */
export interface ListingPage {
  /** The zone's ETag when the page was read: it changes with every change of the zone. */
  etag: string;
  zone: string;
  nextCursor: string | null;
  records: GqlRecordSummary[];
}

/** One page of a zone's master file as the fixed export operation reads it. */
export interface FilePage {
  text: string;
  nextCursor: string | null;
}

/** A whole-zone read: one body when its first page was the last, else the pages streamed as the client takes them. */
export type WholeRead = { body: string; etag: string | null } | { stream: PagedBody };

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** A listing's page as walks share it: its records as the listing writes them, without the brackets (`{…},{…}`). */
function listingPage(page: ListingPage): SharedPage {
  const json = JSON.stringify(page.records.map(recordSummary));
  return {
    bytes: Buffer.from(json.slice(1, -1)),
    next: page.nextCursor,
    count: page.records.length,
    zone: page.zone,
    etag: page.etag,
  };
}

/**
 * The whole listing of a zone (`GET …/records` without `limit`, as the seed has it: `{"zone", "records"}`, the same
 * bytes as JSON.stringify of every record) from pages of the graph, each page one operation bounded like any other,
 * following the cursor from `start`. A zone of one page is one body, with the version it was read at when that is
 * `version` (for the listing cache); a larger one is streamed a page at a time as the client takes it. Walks of one
 * zone version share their pages (`shared`, keyed by `version`: the zone's ETag when the walk began).
 * docs/dns-api.md#whole-zone-reads says what a listing walked while the zone changed holds.
 */
export async function wholeListing(options: {
  version: string;
  type: string | undefined;
  start: string | null;
  read: (cursor: string | null) => Promise<ListingPage>;
  shared: SharedPages;
}): Promise<WholeRead> {
  const { version, type, shared } = options;
  const page = (cursor: string | null): Promise<SharedPage> =>
    shared.get(JSON.stringify(['records', version, type ?? null, cursor]), async () => {
      const read = await options.read(cursor);
      // a page read after the zone changed belongs to this walk, not to the version the key names
      return { page: listingPage(read), keep: read.etag === version };
    });
  const first = await page(options.start);
  const open = `{"zone":${JSON.stringify(first.zone ?? '')},"records":[`;
  if (first.next === null)
    return { body: `${open}${first.bytes.toString('utf8')}]}`, etag: first.etag === version ? version : null };
  async function* chunks(): AsyncGenerator<Buffer, void> {
    yield Buffer.from(open);
    let wrote = false;
    for (let at = first; ;) {
      if ((at.count ?? 0) > 0) {
        if (wrote) yield COMMA;
        yield at.bytes;
        wrote = true;
      }
      if (at.next === null) break;
      at = await page(at.next);
    }
    yield CLOSE;
  }
  return { stream: new PagedBody(chunks()) };
}

/**
 * The zone's master file (`GET …/export`) from pages of the graph (`zoneFilePage`), streamed a page at a time as the
 * client takes it; one page is one body. The pages joined are the file GraphQL's `zoneFile` gives, byte for byte. A
 * page after the zone changed fails (CONFLICT): the stream is then cut off, so that no client takes a file whose SOA
 * serial does not match its records for a whole one. Walks of one zone version share their pages; a page's cursor
 * names its version, the first page is keyed by `version` (the zone's ETag when the walk began).
 */
export async function wholeFile(options: {
  zone: string;
  version: string;
  read: (cursor: string | null) => Promise<FilePage>;
  shared: SharedPages;
}): Promise<WholeRead> {
  const { zone, version, shared } = options;
  const page = (cursor: string | null): Promise<SharedPage> =>
    shared.get(JSON.stringify(['file', zone, cursor ?? version]), async () => {
      const read = await options.read(cursor);
      const bytes = Buffer.from(read.text);
      return { page: { bytes, next: read.nextCursor }, keep: true };
    });
  const first = await page(null);
  if (first.next === null) return { body: first.bytes.toString('utf8'), etag: null };
  async function* chunks(): AsyncGenerator<Buffer, void> {
    for (let at = first; ;) {
      yield at.bytes;
      if (at.next === null) return;
      at = await page(at.next);
    }
  }
  return { stream: new PagedBody(chunks()) };
}
