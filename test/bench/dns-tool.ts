/**
 * DNS record tool part of `npm run bench` (docs/development.md): `/api.php` of the built gateway managing a zone on our
 * embedded DNS server and on BIND 9 `named`, against the original tool's way of working on the same server in the
 * same run:
 * - `create_record` calls per second (one client, one call after the other; and BENCH_TOOL_CLIENTS at once) vs a
 *   shell loop running one `nsupdate` process per change, as the original did — goal ≥ 10×;
 * - `list_records` of a 10 000-record zone: time per call vs `dig AXFR` of the same zone from the same server (the
 *   original ran dig and parsed its output) — goal ≤ 2×.
 * BENCH_SECONDS bounds each timed create run; BENCH_TOOL_NSUPDATES the nsupdate loop's length (default 40).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireTool, startNamed, type Named } from '../support/dns-peers';
import { FIXED_ENV, GATEWAY, SECONDS } from './common';
import { freeDnsPort, startNode, type Child } from './processes';

const execFileP = promisify(execFile);
const LIST_RECORDS = 10_000;
const LIST_RUNS = 9;
const WARMUP_RUNS = 5;
const NSUPDATES = Number(process.env.BENCH_TOOL_NSUPDATES ?? 40);
const CLIENTS = Number(process.env.BENCH_TOOL_CLIENTS ?? 8);
const KEY = 'bench-key';
const TOKEN = `bench_${randomBytes(16).toString('hex')}`;

interface Server {
  label: string;
  host: string;
  port: number;
}

function zoneText(name: string, records: number): string {
  const lines = [
    `$ORIGIN ${name}.`,
    '$TTL 300',
    `@ IN SOA ns1.${name}. hostmaster.${name}. ( 1 3600 600 604800 300 )`,
    `  IN NS ns1.${name}.`,
    'ns1 IN A 127.0.0.1',
  ];
  for (let i = 0; i < records; i++) lines.push(`h${i} IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  return `${lines.join('\n')}\n`;
}

/** The gateway with the tool managing `zones` on `server` (and, for our own server, serving them itself). */
async function startTool(dir: string, keyFile: string, server: Server, embedded: boolean): Promise<Child> {
  const zoneFiles: Record<string, string> = {};
  if (embedded)
    for (const [zone, records] of [
      ['list.test', LIST_RECORDS],
      ['writes.test', 0],
    ] as const) {
      const file = join(dir, `${zone}.db`);
      writeFileSync(file, zoneText(zone, records));
      zoneFiles[zone] = file;
    }
  const where = `${server.host} ${server.port}`;
  const config = {
    zoneFiles,
    tsigKeyFile: keyFile,
    dnsTool: {
      tokens: [TOKEN],
      usersRoles: { [TOKEN]: ['root'] },
      zones: {
        'list.test': { updateServer: where, tsigKey: KEY },
        'writes.test': { updateServer: where, tsigKey: KEY },
      },
    },
  };
  const configFile = join(dir, `config-${server.label}.json`);
  writeFileSync(configFile, JSON.stringify(config));
  return startNode(GATEWAY, {
    ...FIXED_ENV,
    ADMIN_PASSWORD: 'bench-admin-password',
    DATA_DIR: mkdtempSync(join(dir, 'data-')),
    CONFIG: configFile,
    DNS_PORT: embedded ? String(server.port) : '0',
  });
}

async function post(url: string, form: Record<string, string>, session?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(session ? { authorization: `Bearer ${session}` } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/api.php ${form.action}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** create_record calls per second with `clients` callers, each one call after the other, for SECONDS. */
async function createRate(api: string, session: string, clients: number, prefix: string): Promise<number> {
  let done = 0;
  const end = Date.now() + SECONDS * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; Date.now() < end; i++) {
        await post(
          api,
          {
            action: 'create_record',
            record: `${prefix}-${c}-${i}.writes.test`,
            ttl: '300',
            type: 'A',
            value: '192.0.2.1',
          },
          session,
        );
        done++;
      }
    }),
  );
  return done / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** The original's way: a shell loop, one nsupdate process per change. Changes per second. */
async function nsupdateRate(server: Server, keyFile: string, prefix: string): Promise<number> {
  requireTool('nsupdate');
  const script =
    `for i in $(seq 1 ${NSUPDATES}); do ` +
    `printf 'server ${server.host} ${server.port}\\nzone writes.test\\nupdate add ${prefix}-%s.writes.test 300 A 192.0.2.1\\nsend\\n' "$i" ` +
    `| nsupdate -k ${keyFile} || exit 1; done`;
  const started = process.hrtime.bigint();
  await execFileP('bash', ['-c', script]);
  return NSUPDATES / (Number(process.hrtime.bigint() - started) / 1e9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Median milliseconds of `fn` over LIST_RUNS runs after warm-up runs (a server lists zones all day: JIT-warm). */
async function timed(fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARMUP_RUNS; i++) await fn();
  const runs: number[] = [];
  for (let i = 0; i < LIST_RUNS; i++) {
    const started = process.hrtime.bigint();
    await fn();
    runs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(runs);
}

async function listTimes(api: string, session: string, server: Server, keyFile: string): Promise<[number, number]> {
  requireTool('dig');
  const listed = (await fetch(`${api}?action=list_records&zone=list.test`, {
    headers: { authorization: `Bearer ${session}` },
  }).then((r) => r.json())) as unknown[];
  // SOA first and last, NS, the name server's A and the 10 000 records.
  if (listed.length !== LIST_RECORDS + 4) throw new Error(`list_records gave ${listed.length} rows`);
  const tool = await timed(async () => {
    const res = await fetch(`${api}?action=list_records&zone=list.test`, {
      headers: { authorization: `Bearer ${session}` },
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`list_records: ${res.status}`);
  });
  const dig = await timed(async () => {
    await execFileP(
      'dig',
      ['-p', String(server.port), `@${server.host}`, '-k', keyFile, 'list.test', 'AXFR', '+noall', '+answer'],
      { maxBuffer: 64 * 1024 * 1024 },
    );
  });
  return [tool, dig];
}

async function measure(dir: string, keyFile: string, server: Server, embedded: boolean): Promise<string[]> {
  const gw = await startTool(dir, keyFile, server, embedded);
  try {
    const api = `${gw.url}/api.php`;
    const session = (await post(api, { action: 'login_token', token: TOKEN })).session_id as string;
    const one = await createRate(api, session, 1, 'one');
    const many = await createRate(api, session, CLIENTS, 'many');
    const loop = await nsupdateRate(server, keyFile, 'ns');
    const [tool, dig] = await listTimes(api, session, server, keyFile);
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    return [
      `${server.label}: create_record via /api.php, 1 client: ${one.toFixed(0)}/s; ${CLIENTS} clients: ${many.toFixed(0)}/s; ` +
        `nsupdate loop: ${loop.toFixed(1)}/s → ${(one / loop).toFixed(1)}× (1 client), ${(many / loop).toFixed(1)}× ` +
        `(goal ≥ 10×: ${met(one / loop >= 10)})`,
      `${server.label}: list_records of ${LIST_RECORDS} records ${tool.toFixed(1)} ms vs dig AXFR ${dig.toFixed(1)} ms → ` +
        `${(tool / dig).toFixed(2)}× (goal ≤ 2×: ${met(tool / dig <= 2)})`,
    ];
  } finally {
    await gw.stop();
  }
}

export async function dnsToolBenchmark(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tool-'));
  const keyFile = join(dir, 'bench.key');
  writeFileSync(
    keyFile,
    `key "${KEY}" {\n\talgorithm hmac-sha256;\n\tsecret "${randomBytes(32).toString('base64')}";\n};\n`,
  );
  const out = await measure(
    dir,
    keyFile,
    { label: 'our DNS server', host: '127.0.0.1', port: await freeDnsPort() },
    true,
  );
  const options = `type primary; allow-update { key ${KEY}; }; allow-transfer { key ${KEY}; };`;
  let named: Named | undefined;
  try {
    named = await startNamed(
      [
        { name: 'list.test', text: zoneText('list.test', LIST_RECORDS), options },
        { name: 'writes.test', text: zoneText('writes.test', 0), options },
      ],
      `include "${keyFile}";`,
    );
    out.push(...(await measure(dir, keyFile, { label: 'BIND 9', host: named.host, port: named.port }, false)));
  } finally {
    await named?.stop();
  }
  return out;
}
