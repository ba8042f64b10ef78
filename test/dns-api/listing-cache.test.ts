import { ListingCache } from '../../gateway/rest/dns-api/listing-cache';
import { call, startDnsApiSystem, userWithRole, type DnsApiSystem } from './api';

/**
 * Record listings are cached by zone version (gateway/rest/dns-api/listing-cache.ts): a listing is never stale —
 * not after a write through the API, not after a change that bypasses it (a DNS UPDATE commits straight to the
 * store) — and the cache never answers a caller who may not read the zone.
 */
let api: DnsApiSystem;
const ZONE = 'cached.test';
type Listing = { records: Array<{ name: string; type: string; value: string }>; next_cursor?: string | null };

beforeAll(async () => {
  api = await startDnsApiSystem();
  const created = await call(api.gateway, 'POST', '/zones', {
    token: api.adminToken,
    body: { name: ZONE, admin_email: `hostmaster@${ZONE}` },
  });
  expect(created.status).toBe(201);
}, 60_000);
afterAll(async () => api?.close());

const list = (token: string | undefined, query = '') =>
  call<Listing>(api.gateway, 'GET', `/zones/${ZONE}/records${query}`, token ? { token } : {});
/** The values of www's A records (ns1.<zone> has its own A: the zone's name server's address). */
const values = (l: Listing) => l.records.filter((r) => r.type === 'A' && r.name === `www.${ZONE}`).map((r) => r.value);

test('a listing follows every change: through the API and straight to the store', async () => {
  expect(values((await list(api.adminToken)).body)).toEqual([]);
  expect(values((await list(api.adminToken)).body)).toEqual([]); // now from the cache
  const added = await call(api.gateway, 'POST', `/zones/${ZONE}/records`, {
    token: api.adminToken,
    body: { name: 'www', type: 'A', value: '192.0.2.1' },
  });
  expect(added.status).toBe(201);
  expect(values((await list(api.adminToken)).body)).toEqual(['192.0.2.1']);
  const store = api.sys.system.dns?.store;
  if (!store) throw new Error('the system runs no DNS part');
  await store.change(ZONE, [{ op: 'add', record: { name: `www.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.2' } }]);
  expect(values((await list(api.adminToken)).body)).toEqual(['192.0.2.1', '192.0.2.2']);
  // pages are cached apart from the whole listing
  const page = await list(api.adminToken, '?limit=2&type=A'); // ns1.<zone>'s A first, then www's
  expect(values(page.body)).toEqual(['192.0.2.1']);
  expect(page.body.next_cursor).toEqual(expect.any(String));
});

test('a cached listing is served only to callers who may read the zone', async () => {
  const viewer = await userWithRole(api, 'cache-viewer', 'viewer');
  const first = await list(viewer.token);
  expect(first.status).toBe(200);
  expect((await list(viewer.token)).text).toBe(first.text);
  const anonymous = await list(undefined);
  expect(anonymous.status).toBe(401);
  expect(anonymous.text).not.toContain('192.0.2.1');
  const tampered = await list(`${viewer.token.slice(0, -2)}xx`);
  expect(tampered.status).toBe(401);
  expect((await call(api.gateway, 'GET', '/zones/nosuch.test/records', { token: viewer.token })).status).toBe(404);
});

test('the cache is bounded in bytes and keeps no listing larger than its entry limit', () => {
  const cache = new ListingCache({ maxBytes: 1000, maxEntryBytes: 400 });
  cache.set('big', 'x'.repeat(201)); // 402 bytes
  expect(cache.get('big')).toBeUndefined();
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, 'y'.repeat(100)); // 200 bytes each: 5 fit
  expect(cache.size).toBe(5);
  expect(cache.get('k0')).toBeUndefined();
  expect(cache.get('k9')).toBe('y'.repeat(100));
  expect(ListingCache.key('"e1"', { type: 'A' })).not.toBe(ListingCache.key('"e2"', { type: 'A' }));
  expect(ListingCache.key('"e1"', { limit: '1' })).not.toBe(ListingCache.key('"e1"', { cursor: '1' }));
});
