// @needs bind build
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsEngine } from '../../dns/engine/engine';
import { sendNotify } from '../../dns/server/operations/notify';
import { openSqliteStore } from '../../dns/store';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { call, startDnsApiSystem, type DnsApiSystem } from '../dns-api/api';
import { axfrLines, dig, ixfrLines, requireTool, startNamed, type Named } from '../support/dns-peers';

/**
 * IXFR out (RFC 1995) over the real wire, the whole system running (answers from the answer thread): after changes
 * through the DNS API, BIND's `dig ixfr=N` gets only what changed since serial N — applied to the zone as it was at
 * N, it gives exactly the zone's AXFR now, for an unsigned and a signed zone — and BIND 9 as our secondary follows a
 * change by an incremental transfer. A serial the journal does not reach gets the zone whole.
 */
let api: DnsApiSystem;
let named: Named | undefined;

beforeAll(async () => {
  requireTool('dig');
  api = await startDnsApiSystem();
}, 60_000);
afterAll(async () => {
  await named?.stop();
  await api?.close();
});

const HOSTS = 120;

async function createZone(zone: string): Promise<void> {
  const zoneFile = [
    `$ORIGIN ${zone}.`,
    `@ 3600 IN SOA ns1.${zone}. hostmaster.${zone}. 2024010101 10800 3600 604800 300`,
    `@ 3600 IN NS ns1.${zone}.`,
    `ns1 3600 IN A 192.0.2.1`,
    ...Array.from({ length: HOSTS }, (_, i) => `h${i} 300 IN A 10.0.${i >> 8}.${i & 255}`),
    '',
  ].join('\n');
  const res = await call(api.gateway, 'POST', '/zones', {
    token: api.adminToken,
    body: { name: zone, zone_file: zoneFile },
  });
  expect(res.status).toBe(201);
}

/** Three changes through the API: a record added, one replaced with another TTL, one deleted. */
async function change(zone: string): Promise<void> {
  const token = api.adminToken;
  const added = await call(api.gateway, 'POST', `/zones/${zone}/records`, {
    token,
    body: { name: 'new', type: 'TXT', value: '"added after N"', ttl: 60 },
  });
  expect(added.status).toBe(201);
  const listed = await call<{ records: Array<{ id: string; name: string; type: string }> }>(
    api.gateway,
    'GET',
    `/zones/${zone}/records?type=A`,
    { token },
  );
  const id = (host: string) => listed.body.records.find((r) => r.name.split('.')[0] === host)?.id ?? 'none';
  const put = await call(api.gateway, 'PUT', `/zones/${zone}/records/${id('h5')}`, {
    token,
    body: { value: '192.0.2.55', ttl: 120 },
  });
  expect(put.status).toBe(200);
  expect((await call(api.gateway, 'DELETE', `/zones/${zone}/records/${id('h7')}`, { token })).status).toBe(200);
}

async function serialOf(zone: string): Promise<number> {
  const soa = await dig(api.dns, [zone, 'SOA']);
  return Number(soa.answer[0]?.split(/\s+/)[6]);
}

/** The record lines of an IXFR answer applied to `before` (AXFR lines); throws on a malformed sequence. */
function applyIxfr(before: readonly string[], ixfr: readonly string[]): string[] {
  const isSoa = (line: string) => line.split(/\s+/)[3] === 'soa';
  const lines = new Set(before.filter((l) => !isSoa(l)));
  // current SOA, then per step: old SOA, deleted…, new SOA, added…; current SOA last
  const body = ixfr.slice(1, -1);
  let mode: 'delete' | 'add' = 'add';
  for (const line of body) {
    if (isSoa(line)) {
      mode = mode === 'add' ? 'delete' : 'add';
      continue;
    }
    if (mode === 'delete') {
      if (!lines.delete(line)) throw new Error(`IXFR deletes a record the old version did not have: ${line}`);
    } else lines.add(line);
  }
  return [...lines].sort();
}

const withoutSoa = (lines: readonly string[]) => lines.filter((l) => l.split(/\s+/)[3] !== 'soa').sort();

const ixfr = (zone: string, serial: number) => ixfrLines(api.dns, zone, serial);

test.each([
  ['unsigned', 'ixfr-out.test', false],
  ['signed (every RRSIG and NSEC change in the steps)', 'ixfr-signed.test', true],
])(
  '%s: dig ixfr=N lists only the changes since N; applied to N they give the AXFR now',
  async (_l, zone, signed) => {
    await createZone(zone);
    if (signed) {
      const enabled = await call(api.gateway, 'POST', `/zones/${zone}/dnssec`, {
        token: api.adminToken,
        body: { enable: true },
      });
      expect(enabled.status).toBe(200);
    }
    const from = await serialOf(zone);
    const before = await axfrLines(api.dns, zone);
    await change(zone);
    const now = await serialOf(zone);
    expect(now).toBeGreaterThan(from);
    const after = await axfrLines(api.dns, zone);
    const incremental = await ixfr(zone, from);
    // three versions: each one's SOA pair, the few records changed (signed: their RRSIGs and NSECs too)
    expect(incremental.length).toBeLessThan(signed ? 60 : 20);
    expect(incremental.length).toBeLessThan(after.length / 2);
    expect(applyIxfr(before, incremental)).toEqual(withoutSoa(after));
    // a serial the journal never had: the zone whole (RFC 1995 §4)
    const whole = await ixfr(zone, from - 1);
    expect(withoutSoa(whole)).toEqual(withoutSoa(after));
    // up to date: our SOA alone
    expect(await ixfr(zone, now)).toHaveLength(1);
  },
  60_000,
);

test('a change large enough that the answer thread gets the copy whole still answers incrementally', async () => {
  const zone = 'ixfr-whole.test';
  await createZone(zone);
  const from = await serialOf(zone);
  const before = await axfrLines(api.dns, zone);
  // 100 new names: more than a patch layer holds for this zone, so the copy is folded and shipped whole
  const operations = Array.from({ length: 100 }, (_, i) => ({
    operation: 'create',
    name: `bulk${i}`,
    type: 'A',
    value: `198.51.100.${i}`,
  }));
  const batch = await call(api.gateway, 'POST', `/zones/${zone}/records/batch`, {
    token: api.adminToken,
    body: { operations },
  });
  expect(batch.status).toBe(200);
  const incremental = await ixfr(zone, from);
  expect(withoutSoa(incremental)).toHaveLength(100);
  expect(applyIxfr(before, incremental)).toEqual(withoutSoa(await axfrLines(api.dns, zone)));
}, 60_000);

test('BIND 9 as our secondary follows a change by IXFR, and its zone equals ours', async () => {
  const zone = 'ixfr-bind.test';
  await createZone(zone);
  named = await startNamed([
    {
      name: zone,
      text: '',
      options: `type secondary; primaries { 127.0.0.1 port ${api.dns.port}; }; request-ixfr yes;`,
    },
  ]);
  const notify = async () => {
    await sendNotify(zone, { host: named!.host, port: named!.port }, { tries: 1, timeoutMs: 500 });
  };
  const waitSerial = async (serial: number) => {
    for (let i = 0; i < 200; i++) {
      const res = await dig(named!, [zone, 'SOA']);
      if (Number(res.answer[0]?.split(/\s+/)[6]) === serial) return;
      await notify();
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`BIND did not reach serial ${serial}`);
  };
  await waitSerial(await serialOf(zone));
  const logged = named.log().length;
  await change(zone);
  await waitSerial(await serialOf(zone));
  expect(await axfrLines(named, zone)).toEqual(await axfrLines(api.dns, zone));
  // BIND logs each transfer it made: after the change, a few records (the steps), not the zone's 120 hosts
  const transfers = [
    ...named
      .log()
      .slice(logged)
      .matchAll(/Transfer completed: \d+ messages, (\d+) records/g),
  ];
  expect(transfers.length).toBeGreaterThan(0);
  for (const t of transfers) expect(Number(t[1])).toBeLessThan(20);
}, 60_000);

test('answering on the engine loop (answerThread: false): the same incremental answer from its own index', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  const zone = 'inproc.test';
  const text = `$ORIGIN ${zone}.\n@ 3600 IN SOA ns1 hostmaster 1 3600 600 86400 60\n@ IN NS ns1\nns1 IN A 192.0.2.1\nwww IN A 192.0.2.2\n`;
  const from = (await importZoneFile(store, zone, text)).serial;
  const engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, answerThread: false });
  try {
    const server = { host: '127.0.0.1', port: engine.server?.port as number };
    const before = await axfrLines(server, zone);
    const { serial } = (
      await store.change(zone, [
        { op: 'add', record: { name: `mail.${zone}`, type: 'A', ttl: 300, value: '192.0.2.25' } },
        { op: 'deleteMatching', name: `www.${zone}` },
      ])
    ).zone;
    await engine.served(zone, serial);
    const incremental = await ixfrLines(server, zone, from);
    expect(withoutSoa(incremental)).toEqual([`mail.${zone}. 300 in a 192.0.2.25`, `www.${zone}. 3600 in a 192.0.2.2`]);
    expect(applyIxfr(before, incremental)).toEqual(withoutSoa(await axfrLines(server, zone)));
  } finally {
    await engine.close();
    await store.close();
  }
});

test('a TSIG-signed IXFR over several messages: every message signed and verified by dig', async () => {
  const secret = 'aXhmci1vdXQtc2VjcmV0LWl4ZnItb3V0LXNlY3JldA==';
  const store = await openSqliteStore({ file: ':memory:' });
  const zone = 'tsig-ixfr.test';
  const text = `$ORIGIN ${zone}.\n@ 3600 IN SOA ns1 hostmaster 1 3600 600 86400 60\n@ IN NS ns1\nns1 IN A 192.0.2.1\n`;
  const from = (await importZoneFile(store, zone, text)).serial;
  const keys = parseKeyFile(`key "xfr-key" { algorithm hmac-sha256; secret "${secret}"; };`);
  const engine = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: 0,
    keys,
    access: { transferFromLoopback: false },
  });
  try {
    const names = Array.from({ length: 150 }, (_, i) => `bulk${i}.${zone}`);
    const { serial } = (
      await store.change(
        zone,
        names.map((name, i) => ({ op: 'add', record: { name, type: 'A', ttl: 300, value: `198.51.100.${i}` } })),
      )
    ).zone;
    await engine.served(zone, serial);
    const { stdout } = await promisify(execFile)(
      'dig',
      [
        '+noall',
        '+answer',
        '+stats',
        '+time=5',
        '+tries=1',
        '-y',
        `hmac-sha256:xfr-key:${secret}`,
        '@127.0.0.1',
      ].concat(['-p', String(engine.server?.port), zone, `IXFR=${from}`]),
      { timeout: 20_000 },
    );
    expect(stdout).not.toMatch(/could not be validated|failure|expected a TSIG|Transfer failed/i);
    // 150 records and the SOAs need two messages at least, each signed
    expect(Number(/XFR size: \d+ records \(messages (\d+)/.exec(stdout)?.[1])).toBeGreaterThanOrEqual(2);
    const added = stdout
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').trim().toLowerCase())
      .filter((l) => l && !l.startsWith(';') && !/ (tsig|soa) /.test(l));
    expect(added.map((l) => l.split(' ')[0]).sort()).toEqual(names.map((n) => `${n}.`).sort());
  } finally {
    await engine.close();
    await store.close();
  }
});
