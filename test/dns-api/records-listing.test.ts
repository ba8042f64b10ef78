import { Kind, parse, visit, type FieldNode } from 'graphql';
import { DnsApiOps } from '../../gateway/rest/dns-api/operations';
import { recordSummary } from '../../gateway/rest/dns-api/render';
import { call, login } from './api';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/**
 * A zone's listing (`GET /zones/{zone}/records`) shows each record's id, name, type, value and ttl — the seed's
 * fields — and nothing else; the fixed operation behind it asks the graph for only those, as large zones are listed
 * whole.
 */
let sys: RunningSystem;
let token: string | undefined;
const ZONE = 'listing.test';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back
type Body = any;
const auth = (): Record<string, string> => ({ authorization: `Bearer ${token ?? ''}` });
const api = (method: string, path: string, body?: unknown) =>
  call<Body>(`${sys.url}/api/v1`, method, path, { token, body });

beforeAll(async () => {
  sys = await startSystem();
  token = await login(`${sys.url}/api/v1`, 'admin', TEST_ADMIN_PASSWORD);
  expect((await api('POST', '/zones', { name: ZONE })).status).toBe(201);
  const operations = [
    { operation: 'create', name: 'www', type: 'A', value: '192.0.2.1', ttl: 300 },
    { operation: 'create', name: '@', type: 'TXT', value: 'hello', ttl: 600 },
  ];
  expect((await api('POST', `/zones/${ZONE}/records/batch`, { operations })).status).toBe(200);
}, 60_000);

afterAll(async () => sys?.close());

test('the listing shows id, name, type, value and ttl of every record, whole and paged', async () => {
  const whole = await api('GET', `/zones/${ZONE}/records`);
  expect(whole.status).toBe(200);
  expect(Object.keys(whole.body).sort()).toEqual(['records', 'zone']);
  const www = (whole.body.records as Array<Record<string, unknown>>).find((r) => r.name === `www.${ZONE}`);
  expect(www).toEqual({ id: expect.any(String), name: `www.${ZONE}`, type: 'A', value: '192.0.2.1', ttl: 300 });
  for (const r of whole.body.records as Array<Record<string, unknown>>)
    expect(Object.keys(r).sort()).toEqual(['id', 'name', 'ttl', 'type', 'value']);
  const page = await api('GET', `/zones/${ZONE}/records?limit=1`);
  expect(page.status).toBe(200);
  expect(Object.keys(page.body.records[0] as object).sort()).toEqual(['id', 'name', 'ttl', 'type', 'value']);
  expect(typeof page.body.next_cursor).toBe('string');
});

test.each([
  ['a page', DnsApiOps.records],
  ['the whole listing, walked in pages', DnsApiOps.recordPage],
])('the operation behind %s selects exactly the fields the listing shows', (_what, op) => {
  let selected: string[] = [];
  visit(parse(op.query), {
    Field(node) {
      const fields = node.selectionSet?.selections ?? [];
      // the record list: `records { records { <leaf fields> } }`
      if (node.name.value === 'records' && fields.every((f) => f.kind === Kind.FIELD && !f.selectionSet))
        selected = fields.map((f) => (f as FieldNode).name.value);
    },
  });
  const shown = Object.keys(recordSummary({ id: 'i', name: 'n', type: 'A', value: 'v', ttl: 1 }));
  expect(selected.sort()).toEqual(shown.sort());
});

test("a record's ETag read through the listing is the one GET gives and If-Match checks", async () => {
  const res = await fetch(`${sys.url}/graphql`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ query: `{ zone(name: "${ZONE}") { records { records { id name etag } } } }` }),
  });
  const body = (await res.json()) as {
    data: { zone: { records: { records: Array<{ id: string; name: string; etag: string }> } } };
  };
  const www = body.data.zone.records.records.find((r) => r.name === `www.${ZONE}`);
  if (!www) throw new Error(`no www in ${JSON.stringify(body)}`);
  expect(www.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  const got = await fetch(`${sys.url}/api/v1/zones/${ZONE}/records/${www.id}`, { headers: auth() });
  expect(got.headers.get('etag')).toBe(www.etag);
  const putIfMatch = (etag: string, ttl: number) =>
    fetch(`${sys.url}/api/v1/zones/${ZONE}/records/${www.id}`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json', 'if-match': etag },
      body: JSON.stringify({ ttl }),
    });
  const first = await putIfMatch(www.etag, 301);
  expect(first.status).toBe(200);
  expect(first.headers.get('etag')).not.toBe(www.etag);
  const stale = await putIfMatch(www.etag, 302);
  expect(stale.status).toBe(412);
  expect(((await stale.json()) as { error: string }).error).toContain('changed since');
});
