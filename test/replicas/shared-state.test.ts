// @needs postgres build redis
import { call, login } from '../dns-api/api';
import { startReplica, stopReplicas, testDatabase, type Replica } from '../support/replica-cluster';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * What replicas share through Redis besides the store, over the real wire (three built processes on one PostgreSQL
 * database and one Redis): a background operation started through one replica is polled through the others. (The
 * login throttle across replicas: login-throttle.test.ts.)
 */
const replicas: Replica[] = [];
let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
let token: string;

beforeAll(async () => {
  database = await testDatabase('shared');
  for (const name of ['a', 'b', 'c']) replicas.push(await startReplica(name, database.url));
  token = await login(replicas[0]!.api, 'admin', TEST_ADMIN_PASSWORD);
}, 180_000);
afterAll(async () => {
  await stopReplicas(replicas);
  await database?.drop();
}, 60_000);

const nth = (i: number): Replica => replicas[i % replicas.length]!;

/** A master file of `count` A records. */
function zoneFile(zone: string, count: number): string {
  const lines = [
    `$ORIGIN ${zone}.`,
    `@ 3600 IN SOA ns1.${zone}. hostmaster.${zone}. 2024010101 10800 3600 604800 3600`,
    `@ 3600 IN NS ns1.${zone}.`,
  ];
  for (let i = 0; i < count; i++) lines.push(`h${i} 300 IN A 192.0.${(i >> 8) & 255}.${i & 255}`);
  return `${lines.join('\n')}\n`;
}

test('a background import started through one replica is polled through the others until it has succeeded', async () => {
  const zone = 'shared-import.example.test';
  const started = await call<{ id: string; state: string }>(nth(0).api, 'POST', '/zones', {
    token,
    headers: { prefer: 'respond-async' },
    body: { name: zone, zone_file: zoneFile(zone, 5_000) },
  });
  expect(started.status).toBe(202);
  const location = started.headers.get('location') ?? '';
  expect(location).toBe(`/api/v1/operations/${started.body.id}`);
  const deadline = Date.now() + 60_000;
  const seen = new Set<string>();
  let last: { state: string; result: { name?: string } | null } | undefined;
  for (let i = 1; Date.now() < deadline; i++) {
    // polled only through the replicas that did not start it
    const polled = await call<{ state: string; result: { name?: string } | null }>(
      nth(1 + (i % 2)).url,
      'GET',
      location,
      { token },
    );
    expect(polled.status).toBe(200);
    seen.add(polled.body.state);
    last = polled.body;
    if (polled.body.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(last).toMatchObject({ state: 'succeeded', result: { name: zone } });
  expect([...seen].every((s) => s === 'running' || s === 'succeeded')).toBe(true);
  const listed = await call<{ records: unknown[] }>(nth(2).api, 'GET', `/zones/${zone}/records?limit=1`, { token });
  expect(listed.status).toBe(200);
}, 120_000);
