// @needs postgres build bind redis
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { call, login } from '../dns-api/api';
import { freeDnsPort } from '../bench/processes';
import { axfrLines, dig, requireTool, soaSerial, startNamed, type Named } from '../support/dns-peers';
import { startReplica, stopReplicas, testDatabase, type Replica } from '../support/replica-cluster';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * A secondary zone added through one replica's API is served by every replica (they read the store's secondary
 * zones every replica-check period), each transferring from the primary itself; BIND 9 is the primary and NOTIFYs
 * both replicas of an nsupdate; a deletion through the other replica stops both.
 */
const run = promisify(execFile);
const ZONE = 'sec-replicas.test';
const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 300
@    IN SOA ns1.${ZONE}. hostmaster.${ZONE}. ( 1 3600 600 86400 60 )
     IN NS  ns1.${ZONE}.
ns1  IN A   192.0.2.1
www  IN A   192.0.2.3
`;
/** A backstop only: the replica check runs every 500 ms. */
const BACKSTOP_MS = 10_000;
const replicas: Replica[] = [];
let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
let named: Named | undefined;
let token: string;

beforeAll(async () => {
  requireTool('nsupdate');
  database = await testDatabase('secondaries');
  const ports = [await freeDnsPort(), await freeDnsPort()];
  named = await startNamed([
    {
      name: ZONE,
      text: ZONE_TEXT,
      options: `type primary; allow-update { 127.0.0.1; }; notify explicit; notify-delay 0; also-notify { ${ports
        .map((p) => `127.0.0.1 port ${p};`)
        .join(' ')} };`,
    },
  ]);
  for (const [i, port] of ports.entries())
    replicas.push(await startReplica(`sec${i}`, database.url, { DNS_PORT: String(port), DNS_WORKERS: '0' }));
  token = await login(replicas[0]!.api, 'admin', TEST_ADMIN_PASSWORD);
}, 180_000);
afterAll(async () => {
  await named?.stop();
  await stopReplicas(replicas);
  await database?.drop();
}, 60_000);

/** Waits until `check` holds at every replica; gives how long it took (ms). */
async function everywhere(what: string, check: (r: Replica) => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    const held = await Promise.all(replicas.map(check));
    if (held.every(Boolean)) return Date.now() - started;
    if (Date.now() - started > BACKSTOP_MS) throw new Error(`not at every replica: ${what} (${held.join(', ')})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('added through one replica: every replica transfers it from BIND and serves the same AXFR', async () => {
  const added = await call(replicas[0]!.api, 'POST', '/secondary-zones', {
    token,
    body: { name: ZONE, primary: `127.0.0.1:${named!.port}` },
  });
  expect(added.status).toBe(201);
  const ms = await everywhere('serial 1', async (r) => (await soaSerial(r.dns, ZONE)) === 1);
  console.log(`secondary zone added through one replica, served by both after ${ms} ms`);
  const bind = (await axfrLines(named!, ZONE)).sort();
  for (const r of replicas) expect((await axfrLines(r.dns, ZONE)).sort()).toEqual(bind);
  // each replica lists it, with its own transfer state
  for (const r of replicas) {
    const got = await call(r.api, 'GET', `/secondary-zones/${ZONE}`, { token });
    expect(got.body).toMatchObject({ name: ZONE, origin: 'api', serial: 1, expired: false });
  }
  // a zone of that name cannot be created through the other replica either
  expect((await call(replicas[1]!.api, 'POST', '/zones', { token, body: { name: ZONE } })).status).toBe(409);
});

test("BIND's NOTIFY after an nsupdate brings the change to both replicas", async () => {
  const child = run('nsupdate', ['-t', '20'], { timeout: 45_000 });
  child.child.stdin?.end(
    `server 127.0.0.1 ${named!.port}\nzone ${ZONE}\nupdate add new.${ZONE} 300 A 192.0.2.77\nsend\n`,
  );
  await child;
  const ms = await everywhere('serial 2', async (r) => (await soaSerial(r.dns, ZONE)) === 2);
  console.log(`nsupdate on BIND → both replicas serve serial 2 after ${ms} ms`);
  for (const r of replicas)
    expect((await dig(r.dns, [`new.${ZONE}`, 'A'])).answer).toEqual([`new.${ZONE}. 300 IN A 192.0.2.77`]);
});

test('deleted through the other replica: neither answers for it any more', async () => {
  const res = await call(replicas[1]!.api, 'DELETE', `/secondary-zones/${ZONE}`, { token });
  expect(res.status).toBe(200);
  await everywhere('REFUSED', async (r) => (await dig(r.dns, [ZONE, 'SOA'])).status === 'REFUSED');
  expect((await call(replicas[0]!.api, 'GET', `/secondary-zones/${ZONE}`, { token })).status).toBe(404);
});
