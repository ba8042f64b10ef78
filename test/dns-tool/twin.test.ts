// @needs bind
import { execFile } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify as yaml } from 'yaml';
import { decodeMessage, type WireRecord } from '../../dns/wire/message';
import { loadConfig } from '../../gateway/host/config/load';
import { startDns } from '../../gateway/host/dns';
import { createLogger } from '../../platform/log';
import { freeDnsPort } from '../bench/processes';
import { dig, requireTool, startNamed, type Named } from '../support/dns-peers';
import { startSystem, type RunningSystem } from '../support/system';

/**
 * The DNS tool's `/api.php` twice, with the same calls: against our embedded DNS server (the system's own) and against
 * BIND 9 `named` as the primary of the same zones (same master file text, same TSIG key for update and transfer).
 * Every response body is kept per target and the two transcripts must be identical; after every change `dig` at
 * that target must show it served. Then the nsupdate view: a replace_record is one UPDATE — seen on the wire (a relay
 * between the tool and each server) and in BIND's journal.
 */

const run = promisify(execFile);

const SECRET = 'dHdpbi10ZXN0LXRvb2wta2V5LXNlY3JldC0wMTIzNDU2Nzg5YWI=';
const STRANGER_SECRET = 'c3RyYW5nZXIta2V5LW5vLXNlcnZlci1rbm93cy1hYm91dC1pdA==';
const KEY_TEXT = `key "tool-key" { algorithm hmac-sha256; secret "${SECRET}"; };\n`;
const STRANGER_TEXT = `key "stranger" { algorithm hmac-sha256; secret "${STRANGER_SECRET}"; };\n`;
/** A key both servers know but allow neither to update nor to transfer any zone. */
const READER_TEXT = `key "reader" { algorithm hmac-sha256; secret "${STRANGER_SECRET}"; };\n`;
const TOKEN = 'twin_0123456789abcdef0f1e2d3c4b5a6978';

const FWD = 'twin.test';
const REV4 = '2.0.192.in-addr.arpa';
const REV6 = '8.b.d.0.1.0.0.2.ip6.arpa';
/** Its tool configuration names a key neither server knows: every change is refused by the server. */
const LOCKED = 'locked.test';
/** Its tool configuration names the key both servers know but do not allow for it. */
const GUARDED = 'guarded.test';
/** A reverse zone with the unknown key too: a PTR step refused after the main change was applied. */
const LOCKED_REV = '100.51.198.in-addr.arpa';

const SOA_NS = (origin: string) => `$ORIGIN ${origin}.
$TTL 300
@ IN SOA ns1.twin.test. hostmaster.twin.test. 2026010101 3600 600 86400 300
@ IN NS ns1.twin.test.
`;
const ZONES: Array<{ name: string; text: string }> = [
  {
    name: FWD,
    text: `${SOA_NS(FWD)}@ IN MX 10 mail
ns1 IN A 192.0.2.53
mail IN A 192.0.2.25
www IN A 192.0.2.10
www IN AAAA 2001:db8::10
alias IN CNAME alias2
alias2 IN CNAME www
txt IN TXT "say \\"hello\\"" "caf\\195\\169 \\226\\130\\172"
*.wild IN A 192.0.2.99
pair IN A 192.0.2.40
pair IN A 192.0.2.41
notes IN TXT "one"
notes IN TXT "two"
move IN A 192.0.2.50
shift IN CNAME www
single IN A 192.0.2.70
sub IN NS ns.example.net.
sub IN DS 12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
@ IN CAA 0 issue "ca.example.net"
`,
  },
  { name: REV4, text: `${SOA_NS(REV4)}10 IN PTR www.twin.test.\n` },
  { name: REV6, text: SOA_NS(REV6) },
  { name: LOCKED, text: `${SOA_NS(LOCKED)}www IN A 192.0.2.200\n` },
  { name: LOCKED_REV, text: SOA_NS(LOCKED_REV) },
  { name: GUARDED, text: SOA_NS(GUARDED) },
];

/** A UDP + TCP relay on one port in front of a DNS server: every UPDATE passing through is decoded and kept. */
interface Relay {
  port: number;
  updates: Array<{ zone: string; updates: WireRecord[]; transport: 'udp' | 'tcp' }>;
  close(): Promise<void>;
}

async function startRelay(upstreamPort: number): Promise<Relay> {
  const port = await freeDnsPort();
  const updates: Relay['updates'] = [];
  const keep = (msg: Buffer, transport: 'udp' | 'tcp') => {
    let m: ReturnType<typeof decodeMessage>;
    try {
      m = decodeMessage(msg);
    } catch (err) {
      // kept (and relayed all the same): the tool must never send one, and the tests would see it
      updates.push({ zone: `undecodable: ${(err as Error).message}`, updates: [], transport });
      return;
    }
    // RFC 2136: opcode 5; the zone section is the question section, the update section the authority section
    if (m.opcodeNumber === 5 && !m.flag_qr)
      updates.push({ zone: m.questions?.[0]?.name ?? '', updates: m.authorities, transport });
  };
  const udp: UdpSocket = createSocket('udp4');
  const upstreams = new Set<UdpSocket>();
  udp.on('message', (msg, from) => {
    keep(msg, 'udp');
    const up = createSocket('udp4');
    upstreams.add(up);
    const done = () => {
      if (upstreams.delete(up)) up.close();
    };
    up.on('message', (answer) => {
      udp.send(answer, from.port, from.address);
      done();
    });
    up.on('error', done);
    setTimeout(done, 10_000).unref();
    up.send(msg, upstreamPort, '127.0.0.1');
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
  const sockets = new Set<Socket>();
  const tcp: Server = createServer((inbound) => {
    const upstream = new Socket();
    sockets.add(inbound).add(upstream);
    upstream.connect(upstreamPort, '127.0.0.1');
    let pending = Buffer.alloc(0);
    inbound.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        keep(pending.subarray(2, 2 + pending.readUInt16BE(0)), 'tcp');
        pending = pending.subarray(2 + pending.readUInt16BE(0));
      }
    });
    upstream.pipe(inbound);
    const end = () => {
      inbound.destroy();
      upstream.destroy();
      sockets.delete(inbound);
      sockets.delete(upstream);
    };
    for (const s of [inbound, upstream]) {
      s.on('close', end);
      s.on('error', end);
    }
  });
  await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', resolve));
  return {
    port,
    updates,
    async close() {
      for (const s of sockets) s.destroy();
      for (const up of upstreams) up.close();
      upstreams.clear();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
}

interface Target {
  name: string;
  system: RunningSystem;
  /** Where `dig` asks: the server itself. */
  dns: { host: string; port: number };
  relay: Relay;
  /** Every /api.php call of the shared sequence and its (normalised) answer, in order. */
  transcript: unknown[];
  /** The tool session of this target's system (login_token). */
  session?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'tool-twin-'));
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};
/** The tool's keys: the zones' key, one only the tool has (LOCKED's), one the servers know but do not allow (GUARDED's). */
const TOOL_KEYFILE = write('tool.keys', KEY_TEXT + STRANGER_TEXT + READER_TEXT);

/** The dnsTool section: every zone's updates through the relay, its transfers and queries straight to the server. */
function toolConfig(serverPort: number, relayPort: number): string {
  const zone = (key: string) => ({
    updateServer: `127.0.0.1 ${relayPort}`,
    transferServer: `127.0.0.1 ${serverPort}`,
    tsigKey: key,
  });
  return yaml({
    dnsTool: {
      tokens: [TOKEN],
      usersRoles: { [TOKEN]: ['root'] },
      zones: {
        [FWD]: { ...zone('tool-key'), note: 'forward zone' },
        [REV4]: zone('tool-key'),
        [REV6]: zone('tool-key'),
        [LOCKED]: { ...zone('stranger'), maintenanceNote: 'its key is the tool’s alone' },
        [LOCKED_REV]: zone('stranger'),
        [GUARDED]: zone('reader'),
      },
    },
  });
}

let named: Named | undefined;
const targets: Target[] = [];
const started: Array<{ close(): Promise<void> }> = [];

async function ours(): Promise<Target> {
  const dnsPort = await freeDnsPort();
  const relay = await startRelay(dnsPort);
  started.push(relay);
  // Our server is the system's own DNS server. It is started here (and handed to the system, which closes it) only
  // so that it reads a key file without the LOCKED zones' key, as named does: in one process the tool and the
  // server would share TSIG_KEYFILE, and a key the server does not know could not be shown. It is started by the
  // same function the system uses (startDns), with DNS_PORT set so that it listens.
  const zoneFiles = Object.fromEntries(ZONES.map((z, i) => [z.name, write(`ours${i}.db`, z.text)]));
  const keys = Object.fromEntries(ZONES.map((z) => [z.name, ['tool-key']]));
  const dataDir = join(dir, 'ours-data');
  mkdirSync(dataDir);
  const serverConfig = loadConfig({
    env: {
      DNS_PORT: String(dnsPort),
      DNS_HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      TSIG_KEYFILE: write('server.keys', KEY_TEXT + READER_TEXT),
      SEED_DEMO: 'false',
      LOG_LEVEL: 'silent',
      CONFIG: write('ours-server.yaml', yaml({ zoneFiles, dnsAccess: { updateKeys: keys, transferKeys: keys } })),
    },
  });
  const dns = await startDns(serverConfig, createLogger('silent'));
  const system = await startSystem(
    {
      DNS_PORT: String(dnsPort),
      TSIG_KEYFILE: TOOL_KEYFILE,
      SEED_DEMO: 'false',
      CONFIG: write('ours.yaml', toolConfig(dnsPort, relay.port)),
    },
    { dns },
  ).catch(async (err: unknown) => {
    await dns.close(); // the system did not start: it closes nothing
    throw err;
  });
  started.push(system);
  return { name: 'our server', system, dns: { host: '127.0.0.1', port: dnsPort }, relay, transcript: [] };
}

async function bind(): Promise<Target> {
  named = await startNamed(
    ZONES.map((z) => ({
      name: z.name,
      text: z.text,
      // The SOA serial policy our store follows (dns/store/serial-policy.ts: BIND's `date` method); BIND's default is
      // `increment`. With the same policy both servers must count the same changes.
      options:
        'type primary; serial-update-method date; allow-update { key tool-key; }; allow-transfer { key tool-key; };',
    })),
    KEY_TEXT + READER_TEXT,
  );
  const bound = named;
  started.push({ close: () => bound.stop() });
  const relay = await startRelay(named.port);
  started.push(relay);
  const system = await startSystem({
    TSIG_KEYFILE: TOOL_KEYFILE,
    SEED_DEMO: 'false',
    CONFIG: write('bind.yaml', toolConfig(named.port, relay.port)),
  });
  started.push(system);
  return { name: 'BIND 9', system, dns: { host: named.host, port: named.port }, relay, transcript: [] };
}

beforeAll(async () => {
  requireTool('named-journalprint');
  targets.push(await ours(), await bind());
}, 60_000);

afterAll(async () => {
  for (const s of started.reverse()) await s.close();
  rmSync(dir, { recursive: true, force: true });
  if (named) rmSync(named.dir, { recursive: true, force: true });
});

const target = (name: string): Target => {
  const t = targets.find((x) => x.name === name);
  if (!t) throw new Error(`target ${name} did not start`);
  return t;
};

const byText = (a: string[], b: string[]): number =>
  a.join(' ') < b.join(' ') ? -1 : a.join(' ') > b.join(' ') ? 1 : 0;

/**
 * SOA rdata with the serial's date (`YYYYMMDD` of `YYYYMMDDnn`) masked: the two targets' runs may fall on two UTC
 * days. (A run of a few seconds that itself spans midnight would count nn from 00 again: that one would differ.)
 */
const maskSerialDate = (soa: string): string => soa.replace(/^(\S+ \S+ )\d{8}(\d{2} )/, '$1YYYYMMDD$2');

/**
 * What may differ between the targets, and only that:
 * - session ids are random, and the server addresses in list_zones carry each target's ports;
 * - SOA serials: both servers follow BIND's `date` method, so the serial is `YYYYMMDDnn` with nn counting the
 *   changes of the day — the count must agree, the date is masked (the two runs may fall on two UTC days);
 * - the order of records between the two SOAs of a zone transfer: AXFR does not define one (RFC 5936 §2.2 fixes
 *   only the SOA first and last). BIND sends names in DNSSEC canonical order, the types of a name in the order its
 *   database holds them (loaded ones in file order, ones added later by UPDATE in front) and the records of a set in
 *   canonical RDATA order; ours sends names and types in byte order. list_records passes the transfer order on, so
 *   its rows between the SOAs are compared sorted (each target's own order is asserted unchanged from its server);
 * - the order of the records of one RRset in an answer (RFC 2181 §5: a set is unordered): BIND rotates it
 *   (rrset-order cyclic), ours keeps it fixed; get_record rows are compared with each set's rows sorted, the
 *   sets themselves (a CNAME chain) kept in the server's order.
 */
function normalise(action: string, body: unknown): unknown {
  if (action === 'login_token' && typeof body === 'object' && body && 'session_id' in body)
    return { ...body, session_id: '<session>' };
  if (action === 'list_zones' && typeof body === 'object' && body)
    return JSON.parse(JSON.stringify(body).replace(/127\.0\.0\.1 \d+/g, '127.0.0.1 <port>')) as unknown;
  if (action === 'list_records' && Array.isArray(body) && body.length >= 2) {
    const rows = (body as string[][]).map((r) => (r[3] === 'SOA' ? [...r.slice(0, 4), maskSerialDate(r[4] ?? '')] : r));
    const middle = rows.slice(1, -1).sort(byText);
    return [rows[0], ...middle, rows[rows.length - 1]];
  }
  if (action === 'get_record' && Array.isArray(body)) {
    const sets: string[][][] = [];
    for (const row of body as string[][]) {
      const last = sets[sets.length - 1];
      if (last && last[0]?.[0] === row[0] && last[0]?.[3] === row[3]) last.push(row);
      else sets.push([row]);
    }
    return sets.flatMap((set) => set.sort(byText));
  }
  return body;
}

/** One /api.php call (POST, form body) with the session, kept in the target's transcript. */
async function call(t: Target, action: string, params: Record<string, string> = {}): Promise<ApiAnswer> {
  const res = await fetch(`${t.system.url}/api.php`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(t.session ? { authorization: `Bearer ${t.session}` } : {}),
    },
    body: new URLSearchParams({ action, ...params }).toString(),
  });
  const text = await res.text();
  const body = JSON.parse(text) as unknown;
  t.transcript.push({ action, params, status: res.status, body: normalise(action, body) });
  return { status: res.status, body };
}
interface ApiAnswer {
  status: number;
  body: unknown;
}

const ok = { status: 200, body: { result: 'success' } };

/** list_records' rows are the zone transfer as the server sent it and as `dig` prints it: order, names, rdata. */
async function asDigTransfers(t: Target, rows: string[][]): Promise<boolean> {
  const viaDig = await dig(t.dns, [FWD, 'AXFR', '-y', `hmac-sha256:tool-key:${SECRET}`]);
  expect(rows.map((r) => r.join(' '))).toEqual(viaDig.answer.filter((l) => !/ TSIG /.test(l)));
  return true;
}

/** dig at the target's server: the answer lines for `name type`, sorted (kept in the transcript too). */
async function served(t: Target, name: string, type: string): Promise<string[]> {
  const answer = await dig(t.dns, [name, type]);
  const lines = [...answer.answer].sort();
  t.transcript.push({ dig: `${name} ${type}`, status: answer.status, answer: lines });
  return lines;
}

/** The update sections of the UPDATEs the relay saw while `fn` ran (kept in the transcript too: the same requests). */
async function sent(t: Target, fn: () => Promise<unknown>): Promise<WireRecord[][]> {
  const before = t.relay.updates.length;
  await fn();
  const updates = t.relay.updates.slice(before).map((u) => u.updates);
  t.transcript.push({ updates });
  return updates;
}

const rr = (name: string, klass: string, type: string, ttl: number, data: unknown) =>
  expect.objectContaining({ name, class: klass, type, ttl, data });

/** Split into strings of 255, 255 and 190 characters; its UPDATE is over 512 bytes, so it goes over TCP. */
const long = `long-${'x'.repeat(695)}`;
const initialSoa = 'ns1.twin.test. hostmaster.twin.test. 2026010101 3600 600 86400 300';

describe.each(['our server', 'BIND 9'])('the tool against %s', (name) => {
  const t = () => target(name);

  test('login_token and list_zones', async () => {
    const login = await call(t(), 'login_token', { token: TOKEN });
    expect(login).toMatchObject({ status: 200, body: { result: 'success', session_id: expect.any(String) } });
    t().session = (login.body as { session_id: string }).session_id;
    const zones = await call(t(), 'list_zones');
    expect(zones.status).toBe(200);
    expect(Object.keys(zones.body as object)).toEqual([FWD, REV4, REV6, LOCKED, LOCKED_REV, GUARDED]);
    expect((zones.body as Record<string, unknown>)[FWD]).toEqual({
      domain: FWD,
      update_server: `127.0.0.1 ${t().relay.port}`,
      transfer_server: `127.0.0.1 ${t().dns.port}`,
      note: 'forward zone',
      read_only: false,
    });
  });

  test('list_records: every record of the zone by transfer, SOA first and last', async () => {
    const { status, body } = await call(t(), 'list_records', { zone: FWD });
    expect(status).toBe(200);
    const rows = body as string[][];
    const soa = ['twin.test.', '300', 'IN', 'SOA', initialSoa];
    expect(rows[0]).toEqual(soa);
    expect(rows[rows.length - 1]).toEqual(soa);
    expect(rows).toContainEqual([
      'txt.twin.test.',
      '300',
      'IN',
      'TXT',
      '"say \\"hello\\"" "caf\\195\\169 \\226\\130\\172"',
    ]);
    expect(rows).toContainEqual(['*.wild.twin.test.', '300', 'IN', 'A', '192.0.2.99']);
    expect(rows).toHaveLength(22);
    expect(await asDigTransfers(t(), rows)).toBe(true);
  });

  test('get_record: A, a CNAME chain, TXT with quotes and non-ASCII bytes, MX, a wildcard, NXDOMAIN', async () => {
    expect(await call(t(), 'get_record', { record: 'www.twin.test' })).toEqual({
      status: 200,
      body: [['www.twin.test.', '300', 'IN', 'A', '192.0.2.10']],
    });
    expect(await call(t(), 'get_record', { record: 'alias.twin.test', type: 'CNAME' })).toEqual({
      status: 200,
      body: [['alias.twin.test.', '300', 'IN', 'CNAME', 'alias2.twin.test.']],
    });
    // An A query at the head of the chain: the CNAMEs and the address, in chain order.
    expect(await call(t(), 'get_record', { record: 'alias.twin.test' })).toEqual({
      status: 200,
      body: [
        ['alias.twin.test.', '300', 'IN', 'CNAME', 'alias2.twin.test.'],
        ['alias2.twin.test.', '300', 'IN', 'CNAME', 'www.twin.test.'],
        ['www.twin.test.', '300', 'IN', 'A', '192.0.2.10'],
      ],
    });
    expect(await call(t(), 'get_record', { record: 'txt', zone: FWD, type: 'TXT' })).toEqual({
      status: 200,
      body: [['txt.twin.test.', '300', 'IN', 'TXT', '"say \\"hello\\"" "caf\\195\\169 \\226\\130\\172"']],
    });
    expect(await call(t(), 'get_record', { record: 'twin.test', type: 'MX' })).toEqual({
      status: 200,
      body: [['twin.test.', '300', 'IN', 'MX', '10 mail.twin.test.']],
    });
    expect(await call(t(), 'get_record', { record: 'anything.wild.twin.test' })).toEqual({
      status: 200,
      body: [['anything.wild.twin.test.', '300', 'IN', 'A', '192.0.2.99']],
    });
    expect(await call(t(), 'get_record', { record: 'nothing.twin.test' })).toEqual({ status: 200, body: [] });
    // below a delegation the server refers elsewhere: no answer rows
    expect(await call(t(), 'get_record', { record: 'host.sub.twin.test' })).toEqual({ status: 200, body: [] });
    expect(await call(t(), 'get_record', { record: 'www.twin.test', type: 'SRV' })).toEqual({ status: 200, body: [] });
  });

  test('create_record: A with its PTR, AAAA with its ip6.arpa PTR, TXT over 255 characters, MX, SRV', async () => {
    const host = t();
    const ptr4 = await sent(host, async () =>
      expect(
        await call(host, 'create_record', {
          record: 'host1.twin.test',
          type: 'A',
          ttl: '600',
          value: '192.0.2.77',
          ptr: 'true',
        }),
      ).toEqual(ok),
    );
    // the record, then its PTR: two UPDATEs, one to each zone
    expect(ptr4).toEqual([
      [rr('host1.twin.test', 'IN', 'A', 600, '192.0.2.77')],
      [rr(`77.${REV4}`, 'IN', 'PTR', 600, 'host1.twin.test')],
    ]);
    expect(await served(host, 'host1.twin.test', 'A')).toEqual(['host1.twin.test. 600 IN A 192.0.2.77']);
    expect(await served(host, `77.${REV4}`, 'PTR')).toEqual([`77.${REV4}. 600 IN PTR host1.twin.test.`]);

    expect(
      await call(host, 'create_record', {
        record: 'host6',
        zone: FWD,
        type: 'AAAA',
        ttl: '600',
        value: '2001:db8::77',
        ptr: '1',
      }),
    ).toEqual(ok);
    const rev6 = `7.7.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.${REV6}`;
    expect(await served(host, 'host6.twin.test', 'AAAA')).toEqual(['host6.twin.test. 600 IN AAAA 2001:db8::77']);
    expect(await served(host, rev6, 'PTR')).toEqual([`${rev6}. 600 IN PTR host6.twin.test.`]);

    const viaTcp = await sent(host, async () =>
      expect(
        await call(host, 'create_record', { record: 'long.twin.test', type: 'TXT', ttl: '300', value: long }),
      ).toEqual(ok),
    );
    expect(viaTcp).toHaveLength(1);
    expect(host.relay.updates[host.relay.updates.length - 1]?.transport).toBe('tcp');
    const split = `"${long.slice(0, 255)}" "${long.slice(255, 510)}" "${long.slice(510)}"`;
    expect(await served(host, 'long.twin.test', 'TXT')).toEqual([`long.twin.test. 300 IN TXT ${split}`]);
    expect(await call(host, 'get_record', { record: 'long.twin.test', type: 'TXT' })).toEqual({
      status: 200,
      body: [['long.twin.test.', '300', 'IN', 'TXT', split]],
    });

    // Unquoted text with quotes and non-ASCII characters: one string of its UTF-8 bytes, the quotes escaped.
    expect(
      await call(host, 'create_record', { record: 'utf.twin.test', type: 'TXT', ttl: '300', value: 'naïve "q"' }),
    ).toEqual(ok);
    expect(await served(host, 'utf.twin.test', 'TXT')).toEqual(['utf.twin.test. 300 IN TXT "na\\195\\175ve \\"q\\""']);

    // An MX to a name out of the zone (BIND refuses an in-zone target without an address: see below).
    expect(
      await call(host, 'create_record', { record: 'twin.test', type: 'MX', ttl: '300', value: '20 mx2.example.net.' }),
    ).toEqual(ok);
    expect(await served(host, 'twin.test', 'MX')).toEqual([
      'twin.test. 300 IN MX 10 mail.twin.test.',
      'twin.test. 300 IN MX 20 mx2.example.net.',
    ]);

    expect(
      await call(host, 'create_record', {
        record: '_sip._tcp.twin.test',
        type: 'SRV',
        ttl: '300',
        value: '10 60 5060 sip.twin.test.',
      }),
    ).toEqual(ok);
    expect(await served(host, '_sip._tcp.twin.test', 'SRV')).toEqual([
      '_sip._tcp.twin.test. 300 IN SRV 10 60 5060 sip.twin.test.',
    ]);

    // A CNAME where other data is: the server ignores the add (RFC 2136 §3.4.2.2), the answer is still NOERROR.
    expect(
      await call(host, 'create_record', {
        record: 'pair.twin.test',
        type: 'CNAME',
        ttl: '300',
        value: 'www.twin.test.',
      }),
    ).toEqual(ok);
    expect(await served(host, 'pair.twin.test', 'CNAME')).toEqual([]);
  });

  test('delete_record: one record by its value, a whole set without one, an A with its PTR', async () => {
    const host = t();
    const one = await sent(host, async () =>
      expect(await call(host, 'delete_record', { record: 'pair.twin.test', type: 'A', value: '192.0.2.41' })).toEqual(
        ok,
      ),
    );
    expect(one).toEqual([[rr('pair.twin.test', 'NONE', 'A', 0, '192.0.2.41')]]);
    expect(await served(host, 'pair.twin.test', 'A')).toEqual(['pair.twin.test. 300 IN A 192.0.2.40']);

    const set = await sent(host, async () =>
      expect(await call(host, 'delete_record', { record: 'notes.twin.test', type: 'TXT' })).toEqual(ok),
    );
    expect(set).toEqual([[rr('notes.twin.test', 'ANY', 'TXT', 0, null)]]);
    expect(await served(host, 'notes.twin.test', 'TXT')).toEqual([]);

    expect(
      await call(host, 'delete_record', { record: 'host1.twin.test', type: 'A', value: '192.0.2.77', ptr: 'true' }),
    ).toEqual(ok);
    expect(await served(host, 'host1.twin.test', 'A')).toEqual([]);
    expect(await served(host, `77.${REV4}`, 'PTR')).toEqual([]);
  });

  test('replace_record: a value, a name, a type — each one UPDATE', async () => {
    const host = t();
    const value = await sent(host, async () =>
      expect(
        await call(host, 'replace_record', {
          record: 'www.twin.test',
          type: 'A',
          value: '192.0.2.10',
          ttl: '300',
          new_value: '192.0.2.11',
        }),
      ).toEqual(ok),
    );
    expect(value).toEqual([
      [rr('www.twin.test', 'NONE', 'A', 0, '192.0.2.10'), rr('www.twin.test', 'IN', 'A', 300, '192.0.2.11')],
    ]);
    expect(await served(host, 'www.twin.test', 'A')).toEqual(['www.twin.test. 300 IN A 192.0.2.11']);
    // The CNAME chain follows the new address.
    expect(await call(host, 'get_record', { record: 'alias.twin.test' })).toMatchObject({
      body: expect.arrayContaining([['www.twin.test.', '300', 'IN', 'A', '192.0.2.11']]),
    });

    const rename = await sent(host, async () =>
      expect(
        await call(host, 'replace_record', {
          record: 'move.twin.test',
          type: 'A',
          value: '192.0.2.50',
          ttl: '300',
          new_record: 'moved.twin.test',
          new_value: '192.0.2.50',
          ptr: 'true',
        }),
      ).toEqual(ok),
    );
    // the change in one UPDATE; the PTR steps (delete the old, which is not there; add the new) after it
    expect(rename).toEqual([
      [rr('move.twin.test', 'NONE', 'A', 0, '192.0.2.50'), rr('moved.twin.test', 'IN', 'A', 300, '192.0.2.50')],
      [rr(`50.${REV4}`, 'NONE', 'PTR', 0, 'move.twin.test')],
      [rr(`50.${REV4}`, 'IN', 'PTR', 300, 'moved.twin.test')],
    ]);
    expect(await served(host, 'move.twin.test', 'A')).toEqual([]);
    expect(await served(host, 'moved.twin.test', 'A')).toEqual(['moved.twin.test. 300 IN A 192.0.2.50']);
    expect(await served(host, `50.${REV4}`, 'PTR')).toEqual([`50.${REV4}. 300 IN PTR moved.twin.test.`]);

    const retype = await sent(host, async () =>
      expect(
        await call(host, 'replace_record', {
          record: 'shift.twin.test',
          type: 'CNAME',
          ttl: '120',
          new_type: 'A',
          new_value: '192.0.2.60',
        }),
      ).toEqual(ok),
    );
    expect(retype).toEqual([
      [rr('shift.twin.test', 'ANY', 'CNAME', 0, null), rr('shift.twin.test', 'IN', 'A', 120, '192.0.2.60')],
    ]);
    expect(await served(host, 'shift.twin.test', 'CNAME')).toEqual([]);
    expect(await served(host, 'shift.twin.test', 'A')).toEqual(['shift.twin.test. 120 IN A 192.0.2.60']);

    // An AAAA to a new address with ptr: the change, then the old ip6.arpa PTR out and the new one in.
    const ip6 = (last: string) => `${last}.${Array(22).fill('0').join('.')}.${REV6}`;
    const moved6 = await sent(host, async () =>
      expect(
        await call(host, 'replace_record', {
          record: 'host6.twin.test',
          type: 'AAAA',
          value: '2001:db8::77',
          ttl: '600',
          new_value: '2001:db8::78',
          ptr: 'true',
        }),
      ).toEqual(ok),
    );
    expect(moved6).toHaveLength(3);
    expect(moved6[0]).toHaveLength(2);
    expect(await served(host, 'host6.twin.test', 'AAAA')).toEqual(['host6.twin.test. 600 IN AAAA 2001:db8::78']);
    expect(await served(host, ip6('7.7'), 'PTR')).toEqual([]);
    expect(await served(host, ip6('8.7'), 'PTR')).toEqual([`${ip6('8.7')}. 600 IN PTR host6.twin.test.`]);
  });

  test('what the server refuses: the ERROR text says what it answered, nothing changes', async () => {
    const host = t();
    const refused = await call(host, 'create_record', {
      record: 'new.locked.test',
      type: 'A',
      ttl: '300',
      value: '192.0.2.201',
    });
    expect(refused).toEqual({
      status: 400,
      body: { error: 'ERROR: update failed: NOTAUTH (BADKEY)', message: 'update failed: NOTAUTH (BADKEY)', code: -1 },
    });
    expect(await served(host, 'new.locked.test', 'A')).toEqual([]);
    // The record is added; its PTR goes to a reverse zone whose key the server does not know.
    const ptr = await call(host, 'create_record', {
      record: 'half.twin.test',
      type: 'A',
      ttl: '300',
      value: '198.51.100.5',
      ptr: 'true',
    });
    expect(ptr).toEqual({
      status: 400,
      body: {
        error: 'ERROR: the record change was applied, but the PTR update failed: update failed: NOTAUTH (BADKEY)',
        message: 'the record change was applied, but the PTR update failed: update failed: NOTAUTH (BADKEY)',
        code: -1,
      },
    });
    expect(await served(host, 'half.twin.test', 'A')).toEqual(['half.twin.test. 300 IN A 198.51.100.5']);
    expect(await served(host, `5.${LOCKED_REV}`, 'PTR')).toEqual([]);
    const listing = await call(host, 'list_records', { zone: LOCKED });
    expect(listing).toMatchObject({
      status: 400,
      body: {
        error: 'ERROR: Unable to retrieve SOA record for locked.test: NOTAUTH (BADKEY)',
        message: 'Unable to retrieve SOA record for locked.test: NOTAUTH (BADKEY)',
        code: -1,
      },
    });

    // a query signed with the unknown key is answered NOTAUTH (BADKEY) as well
    expect(await call(host, 'get_record', { record: 'www.locked.test' })).toEqual({
      status: 400,
      body: { error: 'ERROR: query failed: NOTAUTH (BADKEY)', message: 'query failed: NOTAUTH (BADKEY)', code: -1 },
    });

    // A key the server knows but does not allow for the zone: REFUSED, for the change and for the transfer.
    // Queries are open to everyone, signed with that key too.
    expect(await call(host, 'get_record', { record: 'guarded.test', type: 'NS' })).toEqual({
      status: 200,
      body: [['guarded.test.', '300', 'IN', 'NS', 'ns1.twin.test.']],
    });
    expect(
      await call(host, 'create_record', { record: 'www.guarded.test', type: 'A', ttl: '300', value: '192.0.2.202' }),
    ).toEqual({
      status: 400,
      body: { error: 'ERROR: update failed: REFUSED', message: 'update failed: REFUSED', code: -1 },
    });
    expect(await served(host, 'www.guarded.test', 'A')).toEqual([]);
    expect(await call(host, 'list_records', { zone: GUARDED })).toEqual({
      status: 400,
      body: {
        error: 'ERROR: Unable to retrieve SOA record for guarded.test: REFUSED',
        message: 'Unable to retrieve SOA record for guarded.test: REFUSED',
        code: -1,
      },
    });
  });

  test('edges: TXT deleted by value, a set TTL, the last apex NS, capitals, backslashes, invalid values, DNAME, a delegation', async () => {
    const host = t();
    // the value is given as it was created (unquoted): the tool quotes (and splits) it the same way
    expect(
      await call(host, 'create_record', { record: 'notes.twin.test', type: 'TXT', ttl: '300', value: 'one' }),
    ).toEqual(ok);
    expect(
      await call(host, 'create_record', { record: 'notes.twin.test', type: 'TXT', ttl: '300', value: 'two words' }),
    ).toEqual(ok);
    expect(await call(host, 'delete_record', { record: 'notes.twin.test', type: 'TXT', value: 'one' })).toEqual(ok);
    expect(await served(host, 'notes.twin.test', 'TXT')).toEqual(['notes.twin.test. 300 IN TXT "two words"']);
    expect(await call(host, 'delete_record', { record: 'long.twin.test', type: 'TXT', value: long })).toEqual(ok);
    expect(await served(host, 'long.twin.test', 'TXT')).toEqual([]);

    // a record added with another TTL: the set has one TTL (RFC 2181 §5.2)
    expect(
      await call(host, 'create_record', { record: 'pair.twin.test', type: 'A', ttl: '900', value: '192.0.2.42' }),
    ).toEqual(ok);
    expect(await served(host, 'pair.twin.test', 'A')).toEqual([
      'pair.twin.test. 900 IN A 192.0.2.40',
      'pair.twin.test. 900 IN A 192.0.2.42',
    ]);
    const pair = await call(host, 'get_record', { record: 'pair.twin.test', type: 'A' });
    expect((pair.body as string[][]).sort(byText)).toEqual([
      ['pair.twin.test.', '900', 'IN', 'A', '192.0.2.40'],
      ['pair.twin.test.', '900', 'IN', 'A', '192.0.2.42'],
    ]);

    // the zone's last NS cannot go (RFC 2136 §3.4.2.4): NOERROR, still there
    expect(await call(host, 'delete_record', { record: 'twin.test', type: 'NS' })).toEqual(ok);
    expect(await served(host, 'twin.test', 'NS')).toEqual(['twin.test. 300 IN NS ns1.twin.test.']);

    // a name written with capitals
    expect(
      await call(host, 'create_record', { record: 'Upper.twin.test', type: 'A', ttl: '300', value: '192.0.2.80' }),
    ).toEqual(ok);
    expect(await served(host, 'upper.twin.test', 'A')).toHaveLength(1);
    expect(await call(host, 'get_record', { record: 'UPPER.twin.test' })).toMatchObject({
      status: 200,
      body: [expect.any(Array)],
    });

    // a backslash in unquoted text is a character of the string; quoted text is taken as written
    expect(
      await call(host, 'create_record', { record: 'slash.twin.test', type: 'TXT', ttl: '300', value: 'back\\slash' }),
    ).toEqual(ok);
    expect(
      await call(host, 'create_record', {
        record: 'slash.twin.test',
        type: 'TXT',
        ttl: '300',
        value: '"as" "written"',
      }),
    ).toEqual(ok);
    expect(await served(host, 'slash.twin.test', 'TXT')).toEqual([
      'slash.twin.test. 300 IN TXT "as" "written"',
      'slash.twin.test. 300 IN TXT "back\\\\slash"',
    ]);
    // A value that is no RDATA of its type: a 400 saying what is wrong (nothing is sent), never a 500.
    const invalid = (message: string) => ({
      status: 400,
      body: { error: `ERROR: update failed: ${message}`, message: `update failed: ${message}`, code: -1 },
    });
    expect(
      await call(host, 'create_record', { record: 'bad.twin.test', type: 'TXT', ttl: '300', value: '"unbalanced' }),
    ).toEqual(invalid('TXT value has an unterminated quoted string (a closing " is missing) (got "\\"unbalanced")'));
    expect(
      await call(host, 'create_record', { record: 'bad.twin.test', type: 'A', ttl: '300', value: '300.1.2.3' }),
    ).toEqual(
      invalid(
        'A value must be an IPv4 address in dotted-quad form like 192.0.2.1, four numbers 0-255 without leading zeros (got "300.1.2.3")',
      ),
    );
    const sentBefore = host.relay.updates.length;
    expect(
      await call(host, 'replace_record', {
        record: 'pair.twin.test',
        type: 'A',
        value: '192.0.2.40',
        ttl: '300',
        new_type: 'MX',
        new_value: 'mail',
      }),
    ).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^update failed: MX value must be/) } });
    expect(host.relay.updates.length).toBe(sentBefore);
    expect(await served(host, 'bad.twin.test', 'ANY')).toEqual([]);

    // DNAME: the answer below it is the DNAME and the CNAME synthesised from it (RFC 6672)
    expect(
      await call(host, 'create_record', { record: 'dn.twin.test', type: 'DNAME', ttl: '300', value: 'example.net.' }),
    ).toEqual(ok);
    expect(await call(host, 'get_record', { record: 'x.dn.twin.test' })).toEqual({
      status: 200,
      body: [
        ['dn.twin.test.', '300', 'IN', 'DNAME', 'example.net.'],
        ['x.dn.twin.test.', '300', 'IN', 'CNAME', 'x.example.net.'],
      ],
    });
    // a delegation made with the tool: its NS asked for is a referral, no answer rows
    expect(
      await call(host, 'create_record', {
        record: 'deleg.twin.test',
        type: 'NS',
        ttl: '300',
        value: 'ns.example.net.',
      }),
    ).toEqual(ok);
    expect(await call(host, 'get_record', { record: 'deleg.twin.test', type: 'NS' })).toEqual({
      status: 200,
      body: [],
    });
    expect((await dig(host.dns, ['deleg.twin.test', 'NS'])).authority).toEqual([
      'deleg.twin.test. 300 IN NS ns.example.net.',
    ]);
    // its DS is the parent's: answered, the digest as dig prints it (hex in chunks of 56)
    expect(
      await call(host, 'create_record', {
        record: 'deleg.twin.test',
        type: 'DS',
        ttl: '300',
        value: '54321 13 2 ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789',
      }),
    ).toEqual(ok);
    expect(await call(host, 'get_record', { record: 'deleg.twin.test', type: 'DS' })).toEqual({
      status: 200,
      body: [
        [
          'deleg.twin.test.',
          '300',
          'IN',
          'DS',
          '54321 13 2 ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF01 23456789',
        ],
      ],
    });
    // a PTR written directly, relative to the reverse zone
    expect(
      await call(host, 'create_record', { record: '99', zone: REV4, type: 'PTR', ttl: '300', value: 'www.twin.test.' }),
    ).toEqual(ok);
    expect(await served(host, `99.${REV4}`, 'PTR')).toEqual([`99.${REV4}. 300 IN PTR www.twin.test.`]);

    // Names that are no DNS names pass the tool's character check: refused before anything is sent.
    const sentBeforeNames = host.relay.updates.length;
    for (const [bad, why] of [
      ['x..twin.test', 'it has an empty label'],
      [`${'l'.repeat(64)}.twin.test`, 'a label is longer than 63 octets (64)'],
    ] as const) {
      expect(await call(host, 'create_record', { record: bad, type: 'A', ttl: '300', value: '192.0.2.1' })).toEqual({
        status: 400,
        body: {
          error: `ERROR: update failed: ${bad} is not a valid DNS name: ${why}`,
          message: `update failed: ${bad} is not a valid DNS name: ${why}`,
          code: -1,
        },
      });
      expect(await call(host, 'get_record', { record: bad })).toMatchObject({
        status: 400,
        body: { message: `query failed: ${bad} is not a valid DNS name: ${why}` },
      });
    }
    expect(host.relay.updates.length).toBe(sentBeforeNames);

    // SPF and SSHFP as the tool creates them
    expect(
      await call(host, 'create_record', { record: 'twin.test', type: 'SPF', ttl: '300', value: 'v=spf1 -all' }),
    ).toEqual(ok);
    expect(await served(host, 'twin.test', 'SPF')).toEqual(['twin.test. 300 IN SPF "v=spf1 -all"']);
    expect(
      await call(host, 'create_record', {
        record: 'ssh.twin.test',
        type: 'SSHFP',
        ttl: '300',
        value: '4 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      }),
    ).toEqual(ok);
    expect(await served(host, 'ssh.twin.test', 'SSHFP')).toHaveLength(1);
  });

  test('list_records after the changes: every change in the transfer, the serial counted on', async () => {
    const { status, body } = await call(t(), 'list_records', { zone: FWD });
    expect(status).toBe(200);
    const rows = body as string[][];
    expect(rows).toContainEqual(['moved.twin.test.', '300', 'IN', 'A', '192.0.2.50']);
    expect(rows).toContainEqual(['shift.twin.test.', '120', 'IN', 'A', '192.0.2.60']);
    expect(rows).not.toContainEqual(['move.twin.test.', '300', 'IN', 'A', '192.0.2.50']);
    // the CNAME was not added beside the A records; the set took the TTL of its last addition
    expect(rows.filter((r) => r[0] === 'pair.twin.test.').sort(byText)).toEqual([
      ['pair.twin.test.', '900', 'IN', 'A', '192.0.2.40'],
      ['pair.twin.test.', '900', 'IN', 'A', '192.0.2.42'],
    ]);
    expect(await asDigTransfers(t(), rows)).toBe(true);
    const serial = Number(rows[0]?.[4]?.split(' ')[2]);
    expect(serial).toBeGreaterThan(2026010101);
    expect(await call(t(), 'list_records', { zone: REV6 })).toMatchObject({ status: 200 });
  });
});

test('the two transcripts are identical', () => {
  const [a, b] = [target('our server'), target('BIND 9')];
  expect(a.transcript.length).toBeGreaterThan(50);
  expect(b.transcript).toEqual(a.transcript);
  // every UPDATE the tool sent was a well-formed message
  for (const t of [a, b]) expect(t.relay.updates.filter((u) => u.zone.startsWith('undecodable'))).toEqual([]);
});

/** named-journalprint's lines as transactions (IXFR order: deletions from the old SOA on, additions from the new). */
function journalTransactions(text: string): Array<{ del: string[]; add: string[] }> {
  const out: Array<{ del: string[]; add: string[] }> = [];
  for (const raw of text.split('\n')) {
    const [op, ...rest] = raw.trim().split(/\s+/);
    const line = rest.join(' ');
    if (op !== 'del' && op !== 'add') continue;
    if (op === 'del' && / IN SOA /.test(line)) out.push({ del: [], add: [] });
    const tx = out[out.length - 1];
    if (!tx) throw new Error(`journal does not start with a transaction: ${raw}`);
    if (!/ IN SOA /.test(line)) tx[op].push(line);
  }
  return out;
}

describe("nsupdate's view: replace_record is one UPDATE, the name never without its record", () => {
  const replace = (t: Target) =>
    call(t, 'replace_record', {
      record: 'single.twin.test',
      type: 'A',
      value: '192.0.2.70',
      ttl: '300',
      new_value: '192.0.2.71',
    });

  test.each(['our server', 'BIND 9'])(
    'on the wire to %s: exactly one UPDATE, the delete and the add in its update section',
    async (name) => {
      const t = target(name);
      const before = t.relay.updates.length;
      expect(await replace(t)).toEqual(ok);
      expect(t.relay.updates.slice(before)).toEqual([
        {
          zone: FWD,
          updates: [
            rr('single.twin.test', 'NONE', 'A', 0, '192.0.2.70'),
            rr('single.twin.test', 'IN', 'A', 300, '192.0.2.71'),
          ],
          transport: 'udp',
        },
      ]);
      expect(await served(t, 'single.twin.test', 'A')).toEqual(['single.twin.test. 300 IN A 192.0.2.71']);
    },
  );

  test("in BIND's journal: one transaction deletes the old and adds the new; no transaction leaves the name empty", async () => {
    if (!named) throw new Error('named did not start');
    // startNamed writes the zones' files as zone<i>.db in its directory; BIND keeps a dynamic zone's journal beside it
    const { stdout } = await run('named-journalprint', [
      join(named.dir, `zone${ZONES.findIndex((z) => z.name === FWD)}.db.jnl`),
    ]);
    const transactions = journalTransactions(stdout);
    const old = 'single.twin.test. 300 IN A 192.0.2.70';
    const next = 'single.twin.test. 300 IN A 192.0.2.71';
    const touching = transactions.filter((tx) =>
      [...tx.del, ...tx.add].some((l) => l.startsWith('single.twin.test. ')),
    );
    expect(touching).toEqual([{ del: [old], add: [next] }]);
    // Replayed from the zone file's records at the name, the name has a record after every transaction.
    const records = new Set([old]);
    for (const tx of transactions) {
      for (const l of tx.del) records.delete(l);
      for (const l of tx.add) if (l.startsWith('single.twin.test. ')) records.add(l);
      expect(records.size).toBeGreaterThan(0);
    }
    expect([...records]).toEqual([next]);
    // every change of the shared sequence is in the journal too, each as its own transaction
    expect(
      transactions.some(
        (tx) =>
          tx.del.includes('move.twin.test. 300 IN A 192.0.2.50') &&
          tx.add.includes('moved.twin.test. 300 IN A 192.0.2.50'),
      ),
    ).toBe(true);
  });
});

describe('where BIND and our server differ (recorded, not normalised)', () => {
  // BIND checks an MX added by UPDATE (check-integrity, on by default for a primary): an in-zone target without an
  // address record is REFUSED ("has no address records (A or AAAA)"); our server stores it (RFC 2136 asks no such
  // check). The tool passes on what each server answers.
  test.each([
    [
      'our server',
      ok,
      [
        'twin.test. 300 IN MX 10 mail.twin.test.',
        'twin.test. 300 IN MX 20 mx2.example.net.',
        'twin.test. 300 IN MX 30 nowhere.twin.test.',
      ],
    ],
    [
      'BIND 9',
      { status: 400, body: { error: 'ERROR: update failed: REFUSED', message: 'update failed: REFUSED', code: -1 } },
      ['twin.test. 300 IN MX 10 mail.twin.test.', 'twin.test. 300 IN MX 20 mx2.example.net.'],
    ],
  ])('an MX to an in-zone name without an address, on %s', async (name, answer, mx) => {
    const t = target(name);
    expect(
      await call(t, 'create_record', { record: 'twin.test', type: 'MX', ttl: '300', value: '30 nowhere.twin.test.' }),
    ).toEqual(answer);
    expect(await served(t, 'twin.test', 'MX')).toEqual(mx);
  });
});
