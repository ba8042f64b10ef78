// @needs bind
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sendNotify } from '../../dns/server/operations/notify';
import { loadConfig } from '../../gateway/host/config/load';
import { startDns, type DnsPart } from '../../gateway/host/dns';
import { createLogger } from '../../platform/log';
import { freePort } from '../bench/processes';
import { dig, requireTool, startNamed, type Named } from '../support/dns-peers';

/**
 * NOTIFY_KEY, end to end from configuration: BIND 9 `named` is the secondary of the demo zone, with
 * `allow-notify { key notify-key; }`. With NOTIFY_KEY naming the key of TSIG_KEYFILE, a write makes named transfer
 * at once, and named's log shows the NOTIFY came signed with that key; with NOTIFY_KEY holding the same key name but
 * another secret (`algorithm:name:secret`), named refuses the NOTIFY (BADSIG) and does not transfer.
 */
const SECRET = 'bm90aWZ5LWtleS1zZWNyZXQtbm90aWZ5LWtleS1zZWNyZXQ=';
const WRONG = Buffer.from('not the notify key secret, not at all').toString('base64');
const KEY_TEXT = `key "notify-key" { algorithm hmac-sha256; secret "${SECRET}"; };`;
const ZONE = 'example.test';

let dir: string;
let keyFile: string;
let named: Named;
let namedLog = '';
let ourPort: number;
/** Lines our DNS part logged (JSON), to see what it says about NOTIFY. */
const logged: string[] = [];

function config(extra: Record<string, string>) {
  return loadConfig({
    env: { DATA_DIR: dir, DNS_HOST: '127.0.0.1', DNS_PORT: String(ourPort), TSIG_KEYFILE: keyFile, ...extra },
  });
}
const logger = createLogger(
  'info',
  new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(chunk.toString());
      done();
    },
  }),
);

async function serialAt(server: { host: string; port: number }): Promise<number | undefined> {
  const res = await dig(server, [ZONE, 'SOA']);
  const serial = /\sSOA\s+\S+\s+\S+\s+(\d+)/i.exec(res.answer[0] ?? '')?.[1];
  return res.status === 'NOERROR' && serial !== undefined ? Number(serial) : undefined;
}

/** Polls until `check` holds (at most `ms`); returns whether it did. */
async function eventually(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

/** Runs our DNS part with `extra` configuration, adds a record, and returns the zone's new serial. */
async function withWrite(extra: Record<string, string>, name: string): Promise<{ part: DnsPart; serial: number }> {
  const part = await startDns(config(extra), logger);
  const outcome = await part.store.change(ZONE, [
    { op: 'add', record: { name: `${name}.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.77' } },
  ]);
  return { part, serial: outcome.zone.serial };
}

beforeAll(async () => {
  requireTool('dig');
  dir = mkdtempSync(join(tmpdir(), 'notify-key-'));
  keyFile = join(dir, 'keys.conf');
  writeFileSync(keyFile, KEY_TEXT);
  // first start: the demo zone, on a port named will transfer from (DNS_PORT=0 would turn the server off)
  ourPort = await freePort();
  const first = await startDns(config({ SEED_DEMO: 'true' }), logger);
  ourPort = first.engine.server?.port as number;
  named = await startNamed(
    [
      {
        name: ZONE,
        text: '',
        options: `type secondary; primaries { 127.0.0.1 port ${ourPort}; }; allow-notify { key "notify-key"; };`,
      },
    ],
    KEY_TEXT,
  );
  named.process.stderr?.on('data', (d: Buffer) => {
    namedLog += d.toString();
  });
  const serial = (await first.store.getZone(ZONE))?.serial;
  expect(await eventually(async () => (await serialAt(named)) === serial)).toBe(true);
  await first.close();
}, 45_000);
afterAll(async () => {
  await named?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('NOTIFY_KEY naming a key of TSIG_KEYFILE: a write makes named transfer at once, told by a signed NOTIFY', async () => {
  const { part, serial } = await withWrite(
    { NOTIFY_TARGETS: `127.0.0.1:${named.port}`, NOTIFY_KEY: 'notify-key' },
    'a',
  );
  try {
    // named's refresh timer is hours (demo SOA refresh 10800): only the NOTIFY makes it transfer within the wait
    expect(await eventually(async () => (await serialAt(named)) === serial)).toBe(true);
    expect(namedLog).toMatch(/\/key notify-key: received notify for zone 'example\.test'/);
    expect(logged.join('')).not.toMatch(/did not acknowledge NOTIFY/);
  } finally {
    await part.close();
  }
}, 30_000);

test('NOTIFY_KEY with the wrong secret: named refuses the NOTIFY (BADSIG) and keeps its copy', async () => {
  const before = await serialAt(named);
  logged.length = 0;
  const { part, serial } = await withWrite(
    { NOTIFY_TARGETS: `127.0.0.1:${named.port}`, NOTIFY_KEY: `hmac-sha256:notify-key:${WRONG}` },
    'b',
  );
  try {
    expect(serial).toBeGreaterThan(before as number);
    // the refusal is an answer (NOTAUTH), not a timeout: our engine logs it once named replied
    expect(await eventually(() => /secondary did not acknowledge NOTIFY/.test(logged.join('')))).toBe(true);
    expect(namedLog).toMatch(/notify-key.*(BADSIG|tsig verify failure)/i);
    // nothing else makes named transfer before its refresh timer (hours): it still has the old serial
    expect(await serialAt(named)).toBe(before);
  } finally {
    await part.close();
  }
}, 30_000);

test('without NOTIFY_KEY the NOTIFY goes out unsigned (named names no key for it)', async () => {
  const acked = await sendNotify(ZONE, { host: '127.0.0.1', port: named.port }, { tries: 1 });
  // BIND takes an unsigned NOTIFY from the zone's primary address whatever allow-notify says; it logs no key
  expect(acked).toBe(true);
  expect(namedLog).toMatch(/127\.0\.0\.1#\d+: received notify for zone 'example\.test'/);
});

test('a NOTIFY_KEY that is not one of the keys stops the start, naming it', async () => {
  await expect(startDns(config({ NOTIFY_KEY: 'no-such-key' }), logger)).rejects.toThrow(
    'NOTIFY key "no-such-key" is not one of the configured TSIG keys',
  );
});
