// @needs build postgres
/**
 * Guards that hold across replicas: three all-in-one processes on one PostgreSQL database (each its own DATA_DIR).
 * The same If-Match sent through all three at once gives exactly one 200 and 412 for the rest, in every round;
 * DNSSEC enabled or rotated through two at once ends with one key set (the other answer a 409).
 */
import { startReplica, stopReplicas, testDatabase, type Replica } from '../support/replica-cluster';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { call, login } from '../dns-api/api';

const ZONE = 'guards.example.test';
const replicas: Replica[] = [];
let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
let token: string;

beforeAll(async () => {
  database = await testDatabase('guards');
  // one at a time: the first migrates the database and creates the admin user
  for (const name of ['a', 'b', 'c']) replicas.push(await startReplica(name, database.url));
  token = await login(nth(0), 'admin', TEST_ADMIN_PASSWORD);
  expect((await call(nth(0), 'POST', '/zones', { token, body: { name: ZONE } })).status).toBe(201);
}, 180_000);
afterAll(async () => {
  await stopReplicas(replicas);
  await database?.drop();
}, 60_000);

function nth(i: number): string {
  const replica = replicas[i];
  if (!replica) throw new Error(`no replica ${i}`);
  return replica.api;
}

const statuses = async (calls: Array<Promise<{ status: number; body: unknown }>>) => {
  const replies = await Promise.all(calls);
  for (const r of replies) if (r.status === 412) expect(r.body).toEqual({ error: expect.any(String) });
  return replies.map((r) => r.status).sort();
};

test('record PUT with one If-Match through three replicas at once: one 200, two 412, in every round', async () => {
  const created = await call<{ id: string }>(nth(0), 'POST', `/zones/${ZONE}/records`, {
    token,
    body: { name: 'www', type: 'A', value: '192.0.2.1' },
  });
  expect(created.status).toBe(201);
  const path = `/zones/${ZONE}/records/${created.body.id}`;
  for (let round = 0; round < 6; round++) {
    const read = await call(nth(round % 3), 'GET', path, { token });
    const etag = read.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const got = await statuses(
      [0, 1, 2].map((i) =>
        call(nth(i), 'PUT', path, {
          token,
          headers: { 'if-match': etag },
          body: { value: `192.0.2.${10 * round + i + 2}` },
        }),
      ),
    );
    expect(got).toEqual([200, 412, 412]);
  }
  const read = await call(nth(1), 'GET', path, { token });
  const deletes = await statuses(
    [0, 1, 2].map((i) =>
      call(nth(i), 'DELETE', path, { token, headers: { 'if-match': read.headers.get('etag') ?? '' } }),
    ),
  );
  // one delete wins; a loser checked once the record is gone is a 404 (RFC 9110 §13.2.1: a precondition is
  // ignored where the request without it would fail), one checked inside the winner's race a 412
  expect(deletes[0]).toBe(200);
  expect(deletes.slice(1).every((s) => s === 404 || s === 412)).toBe(true);
}, 120_000);

test('zone PUT with one If-Match through three replicas at once: one 200, two 412, in every round', async () => {
  for (let round = 0; round < 4; round++) {
    const read = await call(nth(round % 3), 'GET', `/zones/${ZONE}`, { token });
    const etag = read.headers.get('etag') ?? '';
    const got = await statuses(
      [0, 1, 2].map((i) =>
        call(nth(i), 'PUT', `/zones/${ZONE}`, {
          token,
          headers: { 'if-match': etag },
          body: { refresh: 3600 + 10 * round + i },
        }),
      ),
    );
    expect(got).toEqual([200, 412, 412]);
  }
}, 120_000);

test('DNSSEC enable and rotate through two replicas at once: one key set, the other answer a 409', async () => {
  const enable = await Promise.all(
    [0, 1].map((i) => call(nth(i), 'POST', `/zones/${ZONE}/dnssec`, { token, body: { enable: true } })),
  );
  expect(enable.map((r) => r.status).sort()).toEqual([200, 409]);
  const keys = async () =>
    (await call<{ keys: Array<{ key_type: string }> }>(nth(2), 'GET', `/zones/${ZONE}/dnssec`, { token })).body.keys;
  expect((await keys()).map((k) => k.key_type).sort()).toEqual(['KSK', 'ZSK']);
  const rotate = await Promise.all([0, 1].map((i) => call(nth(i), 'POST', `/zones/${ZONE}/dnssec/rotate`, { token })));
  expect(rotate.map((r) => r.status).sort()).toEqual([200, 409]);
  expect((await keys()).map((k) => k.key_type).sort()).toEqual(['KSK', 'ZSK', 'ZSK']);
}, 120_000);
