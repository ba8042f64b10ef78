import { RECORDS_PAGE_MAX } from '../../gateway/rest/dns-api/operations';
import { call, gql, login } from './api';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/**
 * Paging of a zone's records (docs/dns-api.md): `limit` and `cursor` walk the whole listing
 * in its stable order, each page read from the store by keyset, the last page without `next_cursor`.
 */
let sys: RunningSystem;
let token: string | undefined;
const ZONE = 'paging.test';
/** A zone of more than two of the graph's largest pages. */
const LARGE = 'large.test';
const LARGE_RECORDS = 2 * RECORDS_PAGE_MAX + 1_234;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back
type Body = any;
const api = (method: string, path: string, body?: unknown) =>
  call<Body>(`${sys.url}/api/v1`, method, path, { token, body });

beforeAll(async () => {
  sys = await startSystem();
  token = await login(`${sys.url}/api/v1`, 'admin', TEST_ADMIN_PASSWORD);
  expect((await api('POST', '/zones', { name: ZONE, admin_email: 'hostmaster@paging.test' })).status).toBe(201);
  const operations = Array.from({ length: 60 }, (_, i) => ({
    operation: 'create',
    name: `h${i % 20}`,
    type: i % 3 === 0 ? 'TXT' : 'A',
    value: i % 3 === 0 ? `"t${i}"` : `192.0.2.${i}`,
  }));
  expect((await api('POST', `/zones/${ZONE}/records/batch`, { operations })).status).toBe(200);
  const lines = Array.from({ length: LARGE_RECORDS }, (_, i) => `h${i} A 10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
  const zoneFile = `$ORIGIN ${LARGE}.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\n${lines.join('\n')}\n`;
  expect((await api('POST', '/zones', { name: LARGE, zone_file: zoneFile })).status).toBe(201);
}, 60_000);

afterAll(async () => sys?.close());

async function walk(query: string, limit: number, zone = ZONE): Promise<unknown[]> {
  const seen: unknown[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await api('GET', `/zones/${zone}/records?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.body.records.length).toBeLessThanOrEqual(limit);
    seen.push(...page.body.records);
    cursor = page.body.next_cursor ?? null;
    if (!cursor) {
      expect(page.body.records.length).toBeGreaterThan(0); // no empty last page
      return seen;
    }
  }
  throw new Error('paging did not end');
}

test('pages of 7, 1 and 1000 give the whole listing in order; the type filter pages too', async () => {
  const whole = await api('GET', `/zones/${ZONE}/records`);
  expect(whole.status).toBe(200);
  expect(whole.body.records.length).toBeGreaterThanOrEqual(60);
  expect(whole.body.next_cursor ?? null).toBeNull();
  expect(await walk('', 7)).toEqual(whole.body.records);
  expect(await walk('', 1)).toEqual(whole.body.records);
  expect(await walk('', 1000)).toEqual(whole.body.records);
  const txt = await api('GET', `/zones/${ZONE}/records?type=TXT`);
  expect(txt.body.records).toHaveLength(20);
  expect(await walk('&type=TXT', 6)).toEqual(txt.body.records);
});

test('a page that ends exactly at the last record says there is no next page', async () => {
  const whole = (await api('GET', `/zones/${ZONE}/records`)).body.records as unknown[];
  const first = await api('GET', `/zones/${ZONE}/records?limit=${whole.length - 1}`);
  const last = await api('GET', `/zones/${ZONE}/records?limit=1&cursor=${first.body.next_cursor as string}`);
  expect(last.body.records).toEqual(whole.slice(-1));
  expect(last.body.next_cursor ?? null).toBeNull();
});

test.each([
  ['limit=0', 'limit'],
  ['limit=10001', 'limit'],
  ['limit=2&cursor=bm90LWEtY3Vyc29y', 'cursor'],
  ['limit=2&cursor=' + Buffer.from(JSON.stringify(['a', 'BOGUS', 'v', 'id'])).toString('base64url'), 'cursor'],
])('?%s is refused naming %s', async (query, field) => {
  const res = await api('GET', `/zones/${ZONE}/records?${query}`);
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain(field);
  expect(typeof res.body.error).toBe('string');
});

test('a zone larger than the largest page is listed whole without limit: the pages the graph gives, joined', async () => {
  const whole = await api('GET', `/zones/${LARGE}/records`);
  expect(whole.status).toBe(200);
  const records = whole.body.records as Array<{ id: string; name: string }>;
  expect(records).toHaveLength(LARGE_RECORDS + 1); // and the NS
  expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  // byte for byte what the pages at the largest size give, in the listing's shape
  const walked = await walk('', RECORDS_PAGE_MAX, LARGE);
  expect(whole.text === JSON.stringify({ zone: LARGE, records: walked })).toBe(true); // (millions of characters)
  // from the listing cache the second time: the same bytes
  expect((await api('GET', `/zones/${LARGE}/records`)).text === whole.text).toBe(true);
  const fromCursor = await api(
    'GET',
    `/zones/${LARGE}/records?cursor=${(await api('GET', `/zones/${LARGE}/records?limit=3`)).body.next_cursor as string}`,
  );
  expect(fromCursor.body.records).toEqual(records.slice(3));
}, 60_000);

test('over GraphQL a page has a default size and a maximum (BAD_USER_INPUT naming limit and the maximum)', async () => {
  const page = (args: string) =>
    gql<{ zone: { records: { nextCursor: string | null; records: Array<{ id: string }> } } }>(
      sys.url,
      `{ zone(name: "${LARGE}") { records${args} { nextCursor records { id } } } }`,
      {},
      token,
    );
  const first = await page('');
  expect(first.body.errors).toBeUndefined();
  expect(first.body.data?.zone.records.records).toHaveLength(1_000);
  expect(first.body.data?.zone.records.nextCursor).toEqual(expect.any(String));
  const largest = await page(`(limit: ${RECORDS_PAGE_MAX})`);
  expect(largest.body.data?.zone.records.records).toHaveLength(RECORDS_PAGE_MAX);
  const over = await page(`(limit: ${RECORDS_PAGE_MAX + 1})`);
  expect(over.body.errors?.[0]).toMatchObject({
    message: `limit must be an integer from 1 to ${RECORDS_PAGE_MAX} (got ${RECORDS_PAGE_MAX + 1})`,
    extensions: { code: 'BAD_USER_INPUT', field: 'limit' },
  });
}, 60_000);
