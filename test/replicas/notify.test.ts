// @needs postgres build bind redis
import { call, login } from '../dns-api/api';
import { freeDnsPort } from '../bench/processes';
import { axfrLines, dig, startNamed, type Named } from '../support/dns-peers';
import { startReplica, stopReplicas, testDatabase, type Replica } from '../support/replica-cluster';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * NOTIFY targets set on one replica only: that replica tells its secondary of every change, whichever replica it was
 * written through (it follows the store's changes, not only its own writes). BIND 9 is the secondary, with a refresh
 * timer far away, so only NOTIFY brings it the changes.
 */
const ZONE = 'notify-replicas.example.test';
const replicas: Replica[] = [];
let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
let named: Named | undefined;
let token: string;

beforeAll(async () => {
  database = await testDatabase('notify');
  const notifyingPort = await freeDnsPort();
  named = await startNamed([
    { name: ZONE, text: '', options: `type secondary; primaries { 127.0.0.1 port ${notifyingPort}; };` },
  ]);
  replicas.push(await startReplica('writer', database.url));
  replicas.push(
    await startReplica('notifier', database.url, {
      DNS_PORT: String(notifyingPort),
      NOTIFY_TARGETS: `127.0.0.1:${named.port}`,
    }),
  );
  token = await login(replicas[0]!.api, 'admin', TEST_ADMIN_PASSWORD);
}, 180_000);
afterAll(async () => {
  await named?.stop();
  await stopReplicas(replicas);
  await database?.drop();
}, 60_000);

async function serialAt(server: { host: string; port: number }): Promise<number | null> {
  const soa = await dig(server, [ZONE, 'SOA']);
  const serial = soa.answer[0]?.split(' ')[6];
  return serial === undefined ? null : Number(serial);
}

/** Waits until BIND serves `serial` (at most 10 s); gives how long it took. */
async function bindReaches(serial: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    if ((await serialAt(named!)) === serial) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`BIND did not reach serial ${serial}; it has ${await serialAt(named!)}`);
}

test('writes through the replica without NOTIFY targets reach the secondary through the one with them', async () => {
  const [writer, notifier] = [replicas[0]!, replicas[1]!];
  expect((await call(writer.api, 'POST', '/zones', { token, body: { name: ZONE } })).status).toBe(201);
  await bindReaches((await serialAt(notifier.dns))!);
  const lags: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await call(writer.api, 'POST', `/zones/${ZONE}/records`, {
      token,
      body: { name: `w${i}`, type: 'A', value: `192.0.2.${i + 10}` },
    });
    expect(res.status).toBe(201);
    const serial = await serialAt(writer.dns);
    lags.push(await bindReaches(serial!));
  }
  console.log(`BIND followed each write through the other replica after ${lags.join(', ')} ms`);
  expect(await axfrLines(named!, ZONE)).toEqual(await axfrLines(notifier.dns, ZONE));
}, 120_000);
