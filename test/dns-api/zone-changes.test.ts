import { createClient, type Client } from 'graphql-sse';
import { startSystem, SUBGRAPH_MODE, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';
import { waitFor } from '../support/sse';
import { defined } from '../support/defined';

/**
 * The `zoneChanges(zones)` subscription over graphql-sse (/graphql/stream): a subscriber with a token sees every
 * committed write, REST or GraphQL, with the zone's serial after it; a viewer may subscribe, an anonymous caller may
 * not; a subscriber of one zone sees nothing of another.
 */
interface Change {
  zone: string;
  serial: number;
  kind: 'ZONE_CREATED' | 'ZONE_UPDATED' | 'ZONE_DELETED' | 'RECORDS_CHANGED';
  by: string | null;
  names: string[] | null;
  at: string;
}
interface Subscriber {
  changes: Change[];
  errors: unknown[];
  /** Whether the server ended the subscription (an error or the end of the stream). */
  ended: boolean;
  close(): void;
}

const ZONE_CHANGES = 'subscription Z($z: [String!]) { zoneChanges(zones: $z) { zone serial kind by names at } }';

let sys: RunningSystem;
let admin: string;
let viewer: string;
const clients: Client[] = [];

async function gql<T = Record<string, unknown>>(
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> }> {
  const res = await fetch(`${sys.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: T };
}

async function rest(token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sys.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function login(username: string, password: string): Promise<string> {
  const data = await gql<{ login: { token: string } }>(
    undefined,
    'mutation L($u: String!, $p: String!) { login(username: $u, password: $p) { token } }',
    { u: username, p: password },
  );
  return data.data?.login.token as string;
}

/** The zone's serial now (after the write just made: writes here are one at a time). */
async function serialOf(zone: string): Promise<number> {
  const data = await gql<{ zone: { serial: number } }>(admin, 'query S($z: String!) { zone(name: $z) { serial } }', {
    z: zone,
  });
  return data.data?.zone.serial as number;
}

function subscribe(token: string | undefined, zones: string[] | null): Subscriber {
  const client = createClient({
    url: `${sys.url}/graphql/stream`,
    retryAttempts: 0,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  clients.push(client);
  const sub: Subscriber = { changes: [], errors: [], ended: false, close: () => undefined };
  sub.close = client.subscribe<{ zoneChanges: Change }>(
    { query: ZONE_CHANGES, variables: { z: zones } },
    {
      next: (result) => {
        if (result.errors) sub.errors.push(...result.errors);
        if (result.data) sub.changes.push(result.data.zoneChanges);
      },
      error: (err) => {
        sub.errors.push(err);
        sub.ended = true;
      },
      complete: () => {
        sub.ended = true;
      },
    },
  );
  return sub;
}

/**
 * Waits until `subscriber` is live: the subscription is set up on the server some time after the request, so zone
 * settings are written (through GraphQL) until the subscriber sees one; those warm-up changes are then dropped.
 */
async function live(subscribers: Subscriber[], zone: string): Promise<void> {
  let lastSerial = 0;
  for (let attempt = 0; attempt < 100 && !subscribers.every((s) => s.changes.length > 0); attempt++) {
    const data = await gql<{ updateZone: { serial: number } }>(
      admin,
      'mutation W($z: String!, $r: Int!) { updateZone(name: $z, input: { refresh: $r }) { serial } }',
      { z: zone, r: 3600 + attempt },
    );
    lastSerial = data.data?.updateZone.serial as number;
    await new Promise((r) => setTimeout(r, 50));
  }
  await waitFor(
    () => subscribers.every((s) => s.changes.some((c) => c.zone === zone && c.serial === lastSerial)),
    5_000,
    'subscribers live',
  );
  for (const s of subscribers) s.changes.splice(0, s.changes.length);
}

/** The next change `subscriber` sees (it must arrive within the timeout). */
async function next(subscriber: Subscriber, index: number): Promise<Change> {
  await waitFor(() => subscriber.changes.length > index, 5_000, `change #${index + 1}`);
  return defined(subscriber.changes[index], `change #${index + 1}`);
}

beforeAll(async () => {
  sys = await startSystem();
  admin = await login('admin', TEST_ADMIN_PASSWORD);
  await rest(admin, 'POST', '/users', {
    username: 'watcher',
    email: 'watcher@example.com',
    password: 'watcher-password-1',
    role: 'viewer',
  });
  viewer = await login('watcher', 'watcher-password-1');
  for (const zone of ['a.test', 'b.test']) await rest(admin, 'POST', '/zones', { name: zone });
});

afterAll(async () => {
  for (const c of clients) c.dispose();
  await sys?.close();
});

describe(`zoneChanges over graphql-sse (${SUBGRAPH_MODE} subgraphs)`, () => {
  test('a viewer subscribed to a zone sees each REST and GraphQL write with its serial, and nothing of another zone', async () => {
    const ofA = subscribe(viewer, ['a.test']);
    const ofAll = subscribe(admin, null);
    try {
      await live([ofA, ofAll], 'a.test');
      const expected: Array<Pick<Change, 'zone' | 'serial' | 'kind' | 'by'> & { names?: string[] | null }> = [];
      const wrote = async (zone: string, kind: Change['kind'], names?: string[]): Promise<void> => {
        expected.push({ zone, serial: await serialOf(zone), kind, by: 'admin', ...(names ? { names } : {}) });
      };

      // REST: record create, update, delete, a batch, zone settings.
      const created = await rest(admin, 'POST', '/zones/a.test/records', {
        name: 'www',
        type: 'A',
        value: '192.0.2.1',
      });
      await wrote('a.test', 'RECORDS_CHANGED', ['www.a.test']);
      await rest(admin, 'PUT', `/zones/a.test/records/${String(created.id)}`, { ttl: 120 });
      await wrote('a.test', 'RECORDS_CHANGED', ['www.a.test']);
      // A write to b.test between two of a.test: the a.test subscriber must not see it.
      await rest(admin, 'POST', '/zones/b.test/records', { name: 'www', type: 'A', value: '192.0.2.2' });
      const bSerial = await serialOf('b.test');
      await rest(admin, 'POST', '/zones/a.test/records/batch', {
        operations: [
          { operation: 'create', name: 'mail', type: 'A', value: '192.0.2.3' },
          { operation: 'delete', id: created.id },
        ],
      });
      await wrote('a.test', 'RECORDS_CHANGED');
      await rest(admin, 'PUT', '/zones/a.test', { minimum: 600 });
      await wrote('a.test', 'ZONE_UPDATED');

      // GraphQL: a record created and deleted.
      const made = await gql<{ createRecord: { id: string } }>(
        admin,
        'mutation C($z: String!) { createRecord(zone: $z, input: { name: "ftp", type: "CNAME", value: "www" }) { id } }',
        { z: 'a.test' },
      );
      expect(made.errors).toBeUndefined();
      await wrote('a.test', 'RECORDS_CHANGED', ['ftp.a.test']);
      const removed = await gql(
        admin,
        'mutation D($z: String!, $id: ID!) { deleteRecord(zone: $z, id: $id) { success } }',
        {
          z: 'a.test',
          id: made.data?.createRecord.id,
        },
      );
      expect(removed.errors).toBeUndefined();
      await wrote('a.test', 'RECORDS_CHANGED', ['ftp.a.test']);

      const seen = await Promise.all(expected.map((_, i) => next(ofA, i)));
      expect(seen).toEqual(expected.map((e) => expect.objectContaining(e)));
      // Serials rise with every change; each change says when it was seen.
      for (let i = 1; i < seen.length; i++) expect(seen[i]?.serial).toBeGreaterThan(seen[i - 1]?.serial ?? Infinity);
      for (const c of seen) expect(Number.isNaN(Date.parse(c.at))).toBe(false);
      // Nothing of b.test reached the a.test subscriber, and nothing more than the writes above.
      expect(ofA.changes).toHaveLength(expected.length);
      expect(ofA.changes.some((c) => c.zone === 'b.test')).toBe(false);

      // The subscriber of every zone saw the b.test write in its place, between the a.test ones.
      await waitFor(() => ofAll.changes.length >= expected.length + 1, 5_000, 'all-zones subscriber');
      expect(ofAll.changes.map((c) => `${c.zone} ${c.serial}`)).toEqual([
        ...expected.slice(0, 2).map((e) => `${e.zone} ${e.serial}`),
        `b.test ${bSerial}`,
        ...expected.slice(2).map((e) => `${e.zone} ${e.serial}`),
      ]);
    } finally {
      ofA.close();
      ofAll.close();
    }
  });

  test('creating and deleting a zone are changes too (a deletion carries the last serial)', async () => {
    // c.test does not exist yet: its subscriber watches b.test too, to know when it is live.
    const ofC = subscribe(viewer, ['c.test', 'b.test']);
    const ofAll = subscribe(viewer, null);
    try {
      await live([ofC, ofAll], 'b.test');
      await rest(admin, 'POST', '/zones', { name: 'c.test' });
      const serial = await serialOf('c.test');
      const created = await next(ofAll, 0);
      expect(created).toMatchObject({ zone: 'c.test', serial, kind: 'ZONE_CREATED', by: 'admin' });
      await rest(admin, 'DELETE', '/zones/c.test');
      expect(await next(ofAll, 1)).toMatchObject({ zone: 'c.test', serial, kind: 'ZONE_DELETED', by: 'admin' });
      // The subscriber of c.test, set up before the zone existed, saw both as well.
      await waitFor(() => ofC.changes.length >= 2, 5_000, 'c.test subscriber');
      expect(ofC.changes.map((c) => c.kind)).toEqual(['ZONE_CREATED', 'ZONE_DELETED']);
    } finally {
      ofC.close();
      ofAll.close();
    }
  });

  test('a change made outside the API (as a DNS UPDATE commits it, straight to the store) comes with by: null', async () => {
    const ofB = subscribe(viewer, ['b.test']);
    try {
      await live([ofB], 'b.test');
      const store = sys.system.dns?.store;
      if (!store) throw new Error('the system runs no DNS part');
      const outcome = await store.change('b.test', [
        { op: 'add', record: { name: 'upd.b.test', type: 'A', ttl: 60, value: '192.0.2.50' } },
      ]);
      expect(await next(ofB, 0)).toMatchObject({
        zone: 'b.test',
        serial: outcome.zone.serial,
        kind: 'RECORDS_CHANGED',
        by: null,
      });
    } finally {
      ofB.close();
    }
  });

  test('an anonymous caller, or one with a bad token, is refused', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const anonymous = subscribe(token, ['a.test']);
      await waitFor(() => anonymous.ended || anonymous.errors.length > 0, 5_000, 'refusal');
      anonymous.close();
      expect(anonymous.changes).toEqual([]);
      expect(anonymous.errors).toEqual([
        expect.objectContaining({
          path: ['zoneChanges'],
          extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
        }),
      ]);
    }
  });

  test('a zone name that is not one is refused (BAD_USER_INPUT naming zones[i])', async () => {
    const bad = subscribe(viewer, ['a.test', 'bad..name']);
    await waitFor(() => bad.ended || bad.errors.length > 0, 5_000, 'refusal');
    bad.close();
    expect(bad.errors).toEqual([
      expect.objectContaining({
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'zones[1]' }),
      }),
    ]);
    expect(bad.changes).toEqual([]);
  });
});
