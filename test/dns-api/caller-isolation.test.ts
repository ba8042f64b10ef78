import { createClient } from 'graphql-sse';
import type { DnsApiSubgraph } from '../../subgraphs/dns-api';
import { call, gql, startDnsApiSystem, userWithRole, type DnsApiSystem } from './api';

/**
 * Caller-dependent answers are never shared (docs/design.md, "Identity"): two users and an anonymous
 * caller sending the very same query each get their own answer, first and repeated (when a response cache would
 * answer), over GraphQL and REST; an admin's answer is never served to a viewer; a write is seen by the next read.
 */
let api: DnsApiSystem;
let alice: { id: string; token: string };
let bob: { id: string; token: string };

beforeAll(async () => {
  api = await startDnsApiSystem({ DNS_PORT: '0' });
  alice = await userWithRole(api, 'alice', 'operator');
  bob = await userWithRole(api, 'bob', 'viewer');
}, 60_000);
afterAll(() => api?.close());

const ME = '{ me { id username role } }';

test('me: each caller sees themself, repeated and interleaved; the anonymous caller sees no one', async () => {
  for (let round = 0; round < 3; round++) {
    const [a, b, anon, a2] = await Promise.all([
      gql(api.sys.url, ME, {}, alice.token),
      gql(api.sys.url, ME, {}, bob.token),
      gql(api.sys.url, ME),
      gql(api.sys.url, ME, {}, alice.token),
    ]);
    expect(a.body).toEqual({ data: { me: { id: alice.id, username: 'alice', role: 'OPERATOR' } } });
    expect(a2.body).toEqual(a.body);
    expect(b.body).toEqual({ data: { me: { id: bob.id, username: 'bob', role: 'VIEWER' } } });
    expect(anon.body.data ?? null).toBeNull();
    expect(anon.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  }
});

test('me over REST, on both listeners', async () => {
  for (const base of [api.gateway, api.own, api.gateway]) {
    expect((await call(base, 'GET', '/users/me', { token: alice.token })).body).toMatchObject({ username: 'alice' });
    expect((await call(base, 'GET', '/users/me', { token: bob.token })).body).toMatchObject({ username: 'bob' });
    expect((await call(base, 'GET', '/users/me')).status).toBe(401);
  }
});

test("an admin's user list is never served to a viewer or an anonymous caller asking the same query", async () => {
  const USERS = '{ users { username } }';
  for (let round = 0; round < 2; round++) {
    const admin = await gql<{ users: Array<{ username: string }> }>(api.sys.url, USERS, {}, api.adminToken);
    expect(admin.body.data?.users.map((u) => u.username).sort()).toEqual(['admin', 'alice', 'bob']);
    const viewer = await gql(api.sys.url, USERS, {}, bob.token);
    expect(viewer.body.data ?? null).toBeNull();
    expect(viewer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const anonymous = await gql(api.sys.url, USERS);
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  }
  expect((await call(api.gateway, 'GET', '/users', { token: bob.token })).status).toBe(403);
});

test('a token that stopped working is not answered from an earlier response', async () => {
  const carol = await userWithRole(api, 'carol', 'viewer');
  expect((await gql(api.sys.url, ME, {}, carol.token)).body.data).toMatchObject({ me: { username: 'carol' } });
  await call(api.gateway, 'PUT', `/users/${carol.id}`, { token: api.adminToken, body: { disabled: true } });
  const after = await gql(api.sys.url, ME, {}, carol.token);
  expect(after.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
});

test('reads after a write see the write (no stale cached listing)', async () => {
  const ZONES = '{ zones { name recordsCount } }';
  const before = await gql<{ zones: Array<{ name: string }> }>(api.sys.url, ZONES, {}, bob.token);
  expect(before.body.data?.zones).toEqual([]);
  expect((await call(api.gateway, 'POST', '/zones', { token: alice.token, body: { name: 'fresh.test' } })).status).toBe(
    201,
  );
  const after = await gql<{ zones: Array<{ name: string; recordsCount: number }> }>(api.sys.url, ZONES, {}, bob.token);
  expect(after.body.data?.zones).toEqual([{ name: 'fresh.test', recordsCount: 2 }]); // NS and ns1's A
  await call(api.gateway, 'POST', '/zones/fresh.test/records', {
    token: alice.token,
    body: { name: 'www', type: 'A', value: '192.0.2.1' },
  });
  const again = await gql<{ zones: Array<{ recordsCount: number }> }>(api.sys.url, ZONES, {}, bob.token);
  expect(again.body.data?.zones[0]?.recordsCount).toBe(3); // NS, ns1 A and the new record
});

describe('zoneChanges subscription', () => {
  const SUB = 'subscription ($z: [String!]) { zoneChanges(zones: $z) { zone kind by names } }';
  type Change = { zone: string; kind: string; by: string | null; names: string[] | null };

  /** Subscribes and collects events until `count` arrived (or the stream failed). */
  function subscribe(token: string | undefined, zones: string[] | null, count: number) {
    const client = createClient({
      url: `${api.sys.url}/graphql/stream`,
      retryAttempts: 0,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const events: Array<{ data?: { zoneChanges: Change } | null; errors?: readonly { message: string }[] }> = [];
    const done = (async () => {
      try {
        for await (const event of client.iterate({ query: SUB, variables: { z: zones } })) {
          events.push(event as (typeof events)[number]);
          if (events.length >= count || event.errors) break;
        }
      } catch (err) {
        events.push({ errors: [{ message: String(err) }] });
      } finally {
        client.dispose();
      }
    })();
    return { events, done };
  }

  const feedSize = (): number => (api.sys.subgraphs.get('dns-api') as DnsApiSubgraph).api.feed.size;

  test('each subscriber gets the changes of its zones with who made them; an anonymous one is refused', async () => {
    const token = api.adminToken;
    await call(api.gateway, 'POST', '/zones', { token, body: { name: 'watched.test' } });
    await call(api.gateway, 'POST', '/zones', { token, body: { name: 'elsewhere.test' } });
    const base = feedSize();
    const anonymous = subscribe(undefined, null, 1);
    await anonymous.done;
    expect(anonymous.events[0]?.errors?.[0]?.message).toMatch(/credential|UNAUTHENTICATED|Authorization/i);
    const watcher = subscribe(alice.token, ['watched.test'], 2);
    const everything = subscribe(bob.token, null, 2);
    for (let i = 0; i < 100 && feedSize() < base + 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(feedSize()).toBe(base + 2);

    await call(api.gateway, 'POST', '/zones/elsewhere.test/records', {
      token: alice.token,
      body: { name: 'x', type: 'A', value: '192.0.2.7' },
    });
    await call(api.gateway, 'POST', '/zones/watched.test/records', {
      token,
      body: { name: 'www', type: 'A', value: '192.0.2.8' },
    });
    await call(api.gateway, 'POST', '/zones/watched.test/records', {
      token: alice.token,
      body: { name: 'mail', type: 'A', value: '192.0.2.9' },
    });
    await Promise.all([watcher.done, everything.done]);
    expect(watcher.events.map((e) => e.data?.zoneChanges)).toEqual([
      { zone: 'watched.test', kind: 'RECORDS_CHANGED', by: 'admin', names: ['www.watched.test'] },
      { zone: 'watched.test', kind: 'RECORDS_CHANGED', by: 'alice', names: ['mail.watched.test'] },
    ]);
    expect(everything.events.map((e) => e.data?.zoneChanges)).toEqual([
      { zone: 'elsewhere.test', kind: 'RECORDS_CHANGED', by: 'alice', names: ['x.elsewhere.test'] },
      { zone: 'watched.test', kind: 'RECORDS_CHANGED', by: 'admin', names: ['www.watched.test'] },
    ]);
  });
});
