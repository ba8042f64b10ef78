// @needs postgres build bind redis
/**
 * Guards that hold across replicas: three all-in-one processes on one PostgreSQL database (each its own DATA_DIR).
 * The same If-Match sent through all three at once gives exactly one 200 and 412 for the rest, in every round;
 * DNSSEC enabled or rotated through two at once ends with one key set (the other answer a 409); a scheduled re-sign
 * that comes due on all three at once raises the serial once. A zone switched to NSEC3 through one replica is served
 * with NSEC3 by every replica (the choice is in the store), also by one restarted, and back to NSEC likewise.
 */
import pg from 'pg';
import { dig } from '../support/dns-peers';
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
  // DNSSEC timings at their smallest, so a ZSK rollover's next key event (the new key signing) comes due in about 1 s
  const env = {
    DNSSEC_PROPAGATION_DELAY_S: '0',
    DNSSEC_PUBLISH_SAFETY_S: '0',
    DNSSEC_RETIRE_SAFETY_S: '0',
    DNSSEC_DNSKEY_TTL: '1',
  };
  for (const name of ['a', 'b', 'c']) replicas.push(await startReplica(name, database.url, env));
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

/** The serial each replica's DNS server answers for `zone` (BIND's dig). */
async function servedSerials(zone: string): Promise<number[]> {
  return Promise.all(
    replicas.map(async (r) => Number((await dig(r.dns, [zone, 'SOA'])).answer[0]?.split(' ')[6] ?? Number.NaN)),
  );
}

/** The change log of `zone`: what the store committed, whichever replica wrote it, oldest first. */
async function changesOf(zone: string): Promise<Array<{ serial: number; kind: string }>> {
  const client = new pg.Client({ connectionString: database!.url });
  await client.connect();
  try {
    const rows = await client.query<{ serial: string; kind: string }>(
      'SELECT serial, kind FROM zone_changes WHERE zone = $1 ORDER BY position',
      [zone],
    );
    return rows.rows.map((r) => ({ serial: Number(r.serial), kind: r.kind }));
  } finally {
    await client.end();
  }
}

test('a re-sign scheduled on three replicas at once raises the serial once', async () => {
  const zone = 'resign.example.test';
  expect((await call(nth(0), 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
  expect((await call(nth(0), 'POST', `/zones/${zone}/dnssec`, { token, body: { enable: true } })).status).toBe(200);
  expect((await call(nth(1), 'POST', `/zones/${zone}/dnssec/rotate`, { token })).status).toBe(200);
  const keys = await call<{ keys: Array<{ activate_at: string | null }> }>(nth(2), 'GET', `/zones/${zone}/dnssec`, {
    token,
  });
  // the new ZSK starts signing at its activation (about 1 s on): every replica's scheduler comes due then
  const due = Math.max(...keys.body.keys.map((k) => Date.parse(k.activate_at ?? '')));
  expect(due).toBeGreaterThan(Date.now() - 60_000);
  // created, enabled, rotated: the scheduled re-sign is the fourth change; wait until it is committed and served
  const deadline = Date.now() + 20_000;
  let changes = await changesOf(zone);
  let served = await servedSerials(zone);
  const settled = () =>
    Date.now() > due && changes.length >= 4 && served.every((s) => s === changes[changes.length - 1]!.serial);
  while (Date.now() < deadline && !settled()) {
    await new Promise((r) => setTimeout(r, 100));
    [changes, served] = await Promise.all([changesOf(zone), servedSerials(zone)]);
  }
  expect(changes.map((c) => c.kind)).toEqual(['zone-created', 'dnssec-changed', 'dnssec-changed', 'dnssec-changed']);
  const bumped = changes[3]!.serial;
  expect(bumped).toBe(changes[2]!.serial + 1);
  // another replica's bump would come from its timer at the same moment; give them two seconds more
  await new Promise((r) => setTimeout(r, 2_000));
  expect(await changesOf(zone)).toHaveLength(4);
  expect(await servedSerials(zone)).toEqual([bumped, bumped, bumped]);
}, 120_000);

test('NSEC3 chosen through one replica: every replica serves it, after a restart too; back to NSEC likewise', async () => {
  const zone = 'nsec3.example.test';
  expect((await call(nth(0), 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
  expect((await call(nth(0), 'POST', `/zones/${zone}/dnssec`, { token, body: { enable: true } })).status).toBe(200);
  /** Which denial each replica's answer to a name that does not exist carries. */
  const denials = async () =>
    Promise.all(
      replicas.map(async (r) => {
        const authority = (await dig(r.dns, ['+dnssec', `nothing.${zone}`, 'A'])).authority.join('\n');
        return /\sNSEC3\s/.test(authority) ? 'NSEC3' : /\sNSEC\s/.test(authority) ? 'NSEC' : 'none';
      }),
    );
  const served = async (want: string) => {
    const deadline = Date.now() + 20_000;
    let seen = await denials();
    while (Date.now() < deadline && !seen.every((d) => d === want)) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await denials();
    }
    return seen;
  };
  expect(await served('NSEC')).toEqual(['NSEC', 'NSEC', 'NSEC']);
  const switched = await call(nth(1), 'POST', `/zones/${zone}/dnssec`, {
    token,
    body: { enable: true, denial: 'NSEC3' },
  });
  expect(switched.status).toBe(200);
  expect(await served('NSEC3')).toEqual(['NSEC3', 'NSEC3', 'NSEC3']);
  const third = replicas[2]!;
  await third.kill();
  await third.restart();
  expect(await served('NSEC3')).toEqual(['NSEC3', 'NSEC3', 'NSEC3']);
  const status = await call<{ denial: string }>(nth(2), 'GET', `/zones/${zone}/dnssec`, { token });
  expect(status.body.denial).toBe('NSEC3');
  const back = await call(nth(2), 'POST', `/zones/${zone}/dnssec`, { token, body: { enable: true, denial: 'NSEC' } });
  expect(back.status).toBe(200);
  expect(await served('NSEC')).toEqual(['NSEC', 'NSEC', 'NSEC']);
}, 120_000);
