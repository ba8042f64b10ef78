import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordFilter, ZoneStore } from '../../dns/store/types';
import { RECORDS_PAGE_MAX } from '../../gateway/rest/dns-api/operations';
import { call, gql, login } from './api';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/**
 * Whole-zone reads (docs/dns-api.md#whole-zone-reads): listings without `limit`, `?type=` listings and exports are
 * streamed a page at a time — the same bytes as the whole rendered at once — walks of one zone version share their
 * pages, a client that goes away stops its walk, and a process runs at most DNS_API_WHOLE_ZONE_READS of them with
 * DNS_API_WHOLE_ZONE_QUEUE waiting (503 with Retry-After beyond; GraphQL's zoneFile: BUSY). Each stop and each hold is
 * seen through the store (pages asked for, a page held back), never through how long something took.
 */
const ZONE = 'whole.test';
/** Three pages of the largest size, so that a listing and an export are streamed. */
const HOSTS = 2 * RECORDS_PAGE_MAX + 500;
const TINY = 'tiny.test';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back
type Body = any;

/** Names whose byte order and DNS canonical order differ, so that the export's order is tested. */
function zoneFile(): string {
  const lines: string[] = [];
  for (let i = 0; i < HOSTS; i++) {
    lines.push(`h${i} A 10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    if (i % 97 === 0) lines.push(`h${i}-x TXT "t${i}"`, `a.h${i} AAAA 2001:db8::${i.toString(16)}`);
  }
  return `$ORIGIN ${ZONE}.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\n${lines.join('\n')}\n`;
}

/**
 * Both systems of this file keep their data here, one after the other: the second finds the zones the first made
 * (importing the large zone is a good part of this file's time), changed by the first's tests only by small changes.
 */
const DATA_DIR = mkdtempSync(join(tmpdir(), 'onegraph-whole-zone-'));
afterAll(() => rmSync(DATA_DIR, { recursive: true, force: true }));

async function startWithZones(env: Record<string, string>) {
  const sys = await startSystem({ ...env, DATA_DIR });
  const base = `${sys.url}/api/v1`;
  const token = await login(base, 'admin', TEST_ADMIN_PASSWORD);
  if ((await call(base, 'GET', `/zones/${ZONE}`, { token })).status === 404) {
    const created = await call(base, 'POST', '/zones', { token, body: { name: ZONE, zone_file: zoneFile() } });
    expect(created.status).toBe(201);
    expect((await call(base, 'POST', '/zones', { token, body: { name: TINY } })).status).toBe(201);
  }
  const store = sys.system.dns?.store;
  if (!store) throw new Error('the system runs no DNS part');
  return { sys, base, token, store };
}

/** Store reads of ZONE's pages, with a way to hold one back until the test lets it go. */
function watchPages(store: ZoneStore) {
  const listRecords = store.listRecords.bind(store);
  const eachRecord = store.eachRecord.bind(store);
  const seen = { listing: 0, file: 0, names: 0 };
  let hold: { at: number; kind: 'listing' | 'file'; reached: () => void; gate: Promise<void> } | undefined;
  store.listRecords = async (zone: string, filter?: RecordFilter) => {
    // An export's page reads thousands of names; the DNS server reads again the few names a change touched.
    const file = (filter?.names?.length ?? 0) > 100;
    if (zone === ZONE && (filter?.limit !== undefined || file)) {
      const kind = file ? 'file' : 'listing';
      const n = ++seen[kind];
      if (hold && hold.kind === kind && hold.at === n) {
        hold.reached();
        await hold.gate;
      }
    }
    return listRecords(zone, filter);
  };
  store.eachRecord = async (zone, visit) => {
    if (zone === ZONE) seen.names++;
    return eachRecord(zone, visit);
  };
  return {
    seen,
    /** Holds back the `at`-th page read of `kind` from now; resolves `reached` once it is asked for. */
    hold(kind: 'listing' | 'file', at: number) {
      let reached = () => {};
      let release = () => {};
      const reachedP = new Promise<void>((resolve) => (reached = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      hold = { at: seen[kind] + at, kind, reached, gate };
      return { reached: reachedP, release };
    },
    restore() {
      store.listRecords = listRecords;
      store.eachRecord = eachRecord;
    },
  };
}

/** Resolves once the server has closed the response to the next request for `path` (its client went away). */
function responseClosed(sys: RunningSystem, path: string): Promise<void> {
  const server = sys.system.app.server;
  return new Promise((resolve) => {
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url !== path) return;
      server.off('request', onRequest);
      res.once('close', () => setImmediate(resolve));
    };
    server.on('request', onRequest);
  });
}

/** A change that gives the zone a new version (pages of walks of the old one are not shared with it). */
async function newVersion(base: string, token: string, name = `v${Date.now()}`) {
  const created = await call<{ id: string }>(base, 'POST', `/zones/${ZONE}/records`, {
    token,
    body: { name, type: 'TXT', value: 'new version' },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** The whole listing as the largest pages give it, joined (what the listing rendered at once is). */
async function pagedListing(base: string, token: string, query = ''): Promise<string> {
  const records: unknown[] = [];
  for (let cursor: string | null = null; ;) {
    const page: { body: Body } = await call<Body>(
      base,
      'GET',
      `/zones/${ZONE}/records?limit=${RECORDS_PAGE_MAX}${query}${cursor ? `&cursor=${cursor}` : ''}`,
      { token },
    );
    records.push(...(page.body.records as unknown[]));
    cursor = (page.body.next_cursor as string | null) ?? null;
    if (!cursor) return JSON.stringify({ zone: page.body.zone as string, records });
  }
}

describe('whole-zone reads, streamed and shared', () => {
  let sys: RunningSystem;
  let base: string;
  let token: string;
  let pages: ReturnType<typeof watchPages>;

  beforeAll(async () => {
    const started = await startWithZones({});
    ({ sys, base, token } = started);
    pages = watchPages(started.store);
  }, 120_000);
  afterAll(async () => {
    pages?.restore();
    await sys?.close();
  });

  test('a listing, a ?type= listing and an export: streamed, byte for byte the whole rendered at once', async () => {
    const whole = await call(base, 'GET', `/zones/${ZONE}/records`, { token });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('transfer-encoding')).toBe('chunked'); // streamed, not one body
    expect(whole.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(whole.text === (await pagedListing(base, token))).toBe(true); // (millions of characters)
    // HEAD: the headers, without a walk of the zone
    await newVersion(base, token);
    const before = pages.seen.listing;
    const head = await fetch(`${base}/zones/${ZONE}/records`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([
      200,
      'application/json; charset=utf-8',
      '',
    ]);
    expect(pages.seen.listing - before).toBe(1);
    const typed = await call(base, 'GET', `/zones/${ZONE}/records?type=A`, { token });
    expect(typed.headers.get('transfer-encoding')).toBe('chunked');
    expect(typed.text === (await pagedListing(base, token, '&type=A'))).toBe(true);
    const file = await call(base, 'GET', `/zones/${ZONE}/export`, { token });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/dns; charset=utf-8');
    const onePiece = await gql<{ zone: { zoneFile: string } }>(
      sys.url,
      `{ zone(name: "${ZONE}") { zoneFile } }`,
      {},
      token,
    );
    expect(file.text === onePiece.body.data?.zone.zoneFile).toBe(true);
    expect(file.text.split('\n').length).toBeGreaterThan(HOSTS);
  }, 60_000);

  test('over GraphQL, zoneFilePage pages joined are zoneFile; a bad limit or cursor is refused naming it', async () => {
    type Page = { zone: { zoneFilePage: { text: string; nextCursor: string | null } } };
    const texts: string[] = [];
    for (let cursor: string | null = null; ;) {
      const page: { body: { data?: Page | null } } = await gql<Page>(
        sys.url,
        'query($c: String) { zone(name: "whole.test") { zoneFilePage(cursor: $c, limit: 7000) { text nextCursor } } }',
        { c: cursor },
        token,
      );
      const got: Page['zone']['zoneFilePage'] | undefined = page.body.data?.zone.zoneFilePage;
      if (!got) throw new Error('no page');
      texts.push(got.text);
      cursor = got.nextCursor;
      if (!cursor) break;
    }
    expect(texts.length).toBeGreaterThan(2);
    const onePiece = await gql<{ zone: { zoneFile: string } }>(
      sys.url,
      `{ zone(name: "${ZONE}") { zoneFile } }`,
      {},
      token,
    );
    expect(texts.join('') === onePiece.body.data?.zone.zoneFile).toBe(true);
    const over = await gql(sys.url, `{ zone(name: "${ZONE}") { zoneFilePage(limit: 10001) { text } } }`, {}, token);
    expect(over.body.errors?.[0]).toMatchObject({
      message: 'limit must be an integer from 1 to 10000 (got 10001)',
      extensions: { code: 'BAD_USER_INPUT', field: 'limit' },
    });
    const foreign = await gql(
      sys.url,
      `{ zone(name: "${ZONE}") { zoneFilePage(cursor: "bm9wZQ") { text } } }`,
      {},
      token,
    );
    expect(foreign.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', field: 'cursor' });
  }, 60_000);

  test('concurrent reads of one zone version cost one walk: each page read once', async () => {
    await newVersion(base, token);
    const before = { ...pages.seen };
    const listings = await Promise.all(
      Array.from({ length: 8 }, () => call(base, 'GET', `/zones/${ZONE}/records`, { token })),
    );
    expect(listings.every((l) => l.status === 200 && l.text === listings[0]?.text)).toBe(true);
    expect(pages.seen.listing - before.listing).toBe(3);
    const files = await Promise.all(
      Array.from({ length: 8 }, () => call(base, 'GET', `/zones/${ZONE}/export`, { token })),
    );
    expect(files.every((f) => f.status === 200 && f.text === files[0]?.text)).toBe(true);
    expect(pages.seen.names - before.names).toBe(1); // the owner names of the version, read once
    expect(pages.seen.file - before.file).toBe(3);
  }, 60_000);

  test('a client that goes away stops its walk: no page is read after the one being read', async () => {
    await newVersion(base, token);
    const held = pages.hold('listing', 2);
    const closed = responseClosed(sys, `/api/v1/zones/${ZONE}/records`);
    const client = new AbortController();
    const pending = fetch(`${base}/zones/${ZONE}/records`, {
      headers: { authorization: `Bearer ${token}` },
      signal: client.signal,
    }).then(async (res) => {
      await res.body?.getReader().read(); // the first page arrives; the second is held back
      client.abort();
    });
    await held.reached;
    await pending;
    await closed; // the server saw the client go
    const during = pages.seen.listing;
    held.release();
    // the walk would read its third page right after the second: a later listing of another zone is after that
    expect((await call(base, 'GET', `/zones/${TINY}/records`, { token })).status).toBe(200);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(pages.seen.listing).toBe(during);
  }, 60_000);

  test('a listing walked while the zone changes holds every record there throughout, once; an export is cut off', async () => {
    await newVersion(base, token);
    const before = JSON.parse((await call(base, 'GET', `/zones/${ZONE}/records`, { token })).text) as {
      records: Array<{ id: string; name: string }>;
    };
    // a record added before the first page's end and one deleted after it, while the second page is held back (of a
    // new version: the pages of the one listed above are kept, and a walk of it would read none)
    await newVersion(base, token);
    const held = pages.hold('listing', 2);
    const listing = call(base, 'GET', `/zones/${ZONE}/records`, { token });
    await held.reached;
    const added = await newVersion(base, token, 'a0');
    const gone = before.records[before.records.length - 1];
    if (!gone) throw new Error('no records');
    expect((await call(base, 'DELETE', `/zones/${ZONE}/records/${gone.id}`, { token })).status).toBe(200);
    held.release();
    const changed = await listing;
    expect(changed.status).toBe(200);
    const ids = (JSON.parse(changed.text) as { records: Array<{ id: string }> }).records.map((r) => r.id);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const r of before.records) if (r.id !== gone.id) expect(counts.get(r.id)).toBe(1);
    expect(counts.get(added) ?? 0).toBeLessThanOrEqual(1);
    // the next listing is the zone as it is now (nothing of the walk was kept as a version)
    const now = JSON.parse((await call(base, 'GET', `/zones/${ZONE}/records`, { token })).text) as {
      records: Array<{ id: string }>;
    };
    expect(now.records.map((r) => r.id)).toContain(added);
    expect(now.records.map((r) => r.id)).not.toContain(gone.id);

    // an export: the page after the change fails, the response is cut off before its end
    await newVersion(base, token);
    const heldFile = pages.hold('file', 2);
    const exporting = fetch(`${base}/zones/${ZONE}/export`, { headers: { authorization: `Bearer ${token}` } });
    await heldFile.reached;
    await newVersion(base, token);
    heldFile.release();
    const res = await exporting;
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    // exported again: whole, its SOA serial the zone's
    const again = await call(base, 'GET', `/zones/${ZONE}/export`, { token });
    const serial = (await gql<{ zone: { serial: number } }>(sys.url, `{ zone(name: "${ZONE}") { serial } }`, {}, token))
      .body.data?.zone.serial;
    expect(again.text).toMatch(new RegExp(`\\tSOA\\tns1 hostmaster ${serial} `));
  }, 60_000);
});

describe('the cap on whole-zone reads (one running, none waiting)', () => {
  let sys: RunningSystem;
  let base: string;
  let token: string;
  let pages: ReturnType<typeof watchPages>;

  beforeAll(async () => {
    const started = await startWithZones({ DNS_API_WHOLE_ZONE_READS: '1', DNS_API_WHOLE_ZONE_QUEUE: '0' });
    ({ sys, base, token } = started);
    pages = watchPages(started.store);
  }, 120_000);
  afterAll(async () => {
    pages?.restore();
    await sys?.close();
  });

  test('a second whole read is refused with 503 and Retry-After; pages are not capped', async () => {
    // the first listing holds the only slot: its first page is held back
    const held = pages.hold('listing', 1);
    const first = call(base, 'GET', `/zones/${ZONE}/records`, { token });
    await held.reached;
    try {
      for (const path of [`/zones/${TINY}/records`, `/zones/${TINY}/records?type=NS`, `/zones/${ZONE}/export`]) {
        const refused = await call<Body>(base, 'GET', path, { token });
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('2');
        expect(refused.body).toEqual({ error: expect.stringMatching(/^too many whole-zone reads at once/) });
      }
      const busy = await gql(sys.url, `{ zone(name: "${TINY}") { zoneFile } }`, {}, token);
      expect(busy.body.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/^too many whole-zone reads at once/),
        extensions: { code: 'BUSY', retryAfter: 2 },
      });
      // a page with limit is no whole-zone read
      const page = await call<Body>(base, 'GET', `/zones/${TINY}/records?limit=5`, { token });
      expect(page.status).toBe(200);
    } finally {
      held.release();
    }
    const answered = await first;
    expect(answered.status).toBe(200);
    expect((JSON.parse(answered.text) as { records: unknown[] }).records.length).toBeGreaterThan(HOSTS);
    // the slot is free again
    expect((await call(base, 'GET', `/zones/${TINY}/export`, { token })).status).toBe(200);
  }, 60_000);

  test('a client that goes away while its read holds the slot gives the slot back', async () => {
    await newVersion(base, token);
    const held = pages.hold('file', 2);
    const client = new AbortController();
    const exporting = fetch(`${base}/zones/${ZONE}/export`, {
      headers: { authorization: `Bearer ${token}` },
      signal: client.signal,
    }).catch((err: unknown) => err);
    await held.reached;
    client.abort();
    await exporting;
    try {
      // the slot comes back once the server has seen the connection close
      let status = 503;
      for (let tries = 0; status === 503 && tries < 200; tries++) {
        status = (await call(base, 'GET', `/zones/${TINY}/records`, { token })).status;
        if (status === 503) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(status).toBe(200);
    } finally {
      held.release();
    }
  }, 60_000);
});
