import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dnskeyRdata, dsDigest, keyTag, KSK_FLAGS } from '../../dns/dnssec/keys';
import type { DnssecKey } from '../../dns/store/types';
import type { DnssecPolicy } from '../../subgraphs/dns-api/service/dnssec';
import { freePort } from '../bench/processes';
import { requireTool, spawnNamed } from './dns-peers';

/**
 * Independent DNSSEC peers (Debian packages) that judge a signed zone: BIND's `dnssec-verify` and `delv`, ldns's
 * `ldns-verify-zone` and `ldns-key2ds`, Knot's `kzonecheck`, and BIND `named` as a validating resolver. Every helper
 * works on master-file text (an AXFR dump from `dig` is fine) and a zone's DS records, so a zone our server signs can
 * be checked by them exactly like one signed by BIND's own tools (test/dnssec/peers.test.ts, the harness's self-test).
 */

/** A real peer must be installed (see requireTool, which knows each tool's Debian package). */
export const requireDnssecTool = requireTool;

/**
 * A rollover policy of seconds instead of hours (TTLs, delays and margins of 1–2 s), for real-time rollover tests with
 * a validating resolver caching by the TTLs we give.
 */
export const ROLLOVER_POLICY_OF_SECONDS: DnssecPolicy = {
  dnskeyTtl: 2,
  propagationDelay: 1,
  publishSafety: 1,
  retireSafety: 1,
  signatureValidity: 86_400,
  zskLifetime: 86_400,
  kskLifetime: 86_400,
  cdsPublish: 'rollover',
  parentDsTtl: 2,
};

interface ToolRun {
  code: number | null;
  /** stdout and stderr as they came, interleaved (the tools print their verdicts on either). */
  output: string;
}

/** Runs a peer tool to its end (killed after `timeoutMs`); a non-zero exit is a result, not an error. */
function runTool(cmd: string, args: string[], cwd?: string, timeoutMs = 30_000): Promise<ToolRun> {
  requireDnssecTool(cmd);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const add = (d: Buffer) => {
      output += d.toString();
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    const timer = setTimeout(() => {
      output += `\n[${cmd} killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Runs `fn` with a fresh temporary directory, removed afterwards whatever happens. */
async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fqdn = (name: string) => (name.endsWith('.') ? name : `${name}.`);
const isRecordLine = (line: string) => line.trim() !== '' && !/^\s*;/.test(line);

/**
 * The zone text as the verifiers get it: `$ORIGIN` first (so a file with relative names reads the same to all three;
 * ldns-verify-zone has no origin flag), and an AXFR dump's closing SOA removed. A zone transfer (and `dig AXFR`'s
 * output) ends with the SOA it began with; dnssec-verify 9.18, ldns-verify-zone 1.8 and kzonecheck 3.2 all accept
 * that duplicate of an identical record (tried), but it is not part of the zone, so it goes. A closing SOA that
 * differs from the first one (a broken transfer) is kept, for the tools to complain about.
 */
export function zoneFileFromAxfr(zone: string, zoneText: string): string {
  const lines = zoneText.split('\n');
  const records = lines.map((l, i) => [l, i] as const).filter(([l]) => isRecordLine(l));
  const soa = /^\S+\s+(\d+\s+)?(IN\s+)?SOA\s/i;
  const norm = (l: string) => l.trim().replace(/\s+/g, ' ');
  const first = records[0];
  const last = records[records.length - 1];
  if (first && last && first !== last && soa.test(first[0]) && soa.test(last[0]) && norm(first[0]) === norm(last[0])) {
    lines.splice(last[1], 1);
  }
  return `$ORIGIN ${fqdn(zone)}\n${lines.join('\n')}\n`;
}

/** The DS (SHA-256) of the KSKs among a zone's stored keys, as delv's trust anchor wants it: "tag alg 2 HEX". */
export function dsOfKeys(zone: string, keys: readonly DnssecKey[]): string[] {
  return keys
    .filter((k) => k.flags === KSK_FLAGS)
    .map((k) => {
      const rdata = dnskeyRdata(k.flags, k.algorithm, Buffer.from(k.publicKey, 'base64'));
      return `${keyTag(rdata)} ${k.algorithm} 2 ${dsDigest(zone, rdata, 2).toString('hex').toUpperCase()}`;
    });
}

/** A zone transfer (AXFR) of `zone` from `server` as dig prints it: the text the verifiers take. */
export async function axfrText(server: { host: string; port: number }, zone: string): Promise<string> {
  requireTool('dig');
  const { stdout } = await promisify(execFile)('dig', [`@${server.host}`, '-p', String(server.port), zone, 'AXFR'], {
    timeout: 20_000,
  });
  return stdout;
}

export interface PeerVerdict {
  tool: 'dnssec-verify' | 'ldns-verify-zone' | 'kzonecheck';
  ok: boolean;
  output: string;
}

/**
 * Checks a signed zone (master-file text, e.g. `dig AXFR` output with or without its comments) with three independent
 * verifiers, side by side; each verdict is its exit status (0: ok) and what it printed:
 * - `dnssec-verify -o <zone> <file>` (BIND): every RRset signed by a key of every algorithm in the DNSKEY RRset, the
 *   NSEC/NSEC3 chain complete, signatures valid now. Ok: "Zone fully signed:"; a bad one: "No correct
 *   ECDSAP256SHA256 signature for www.example.test A" … "DNSSEC completeness test failed." (exit 1).
 * - `ldns-verify-zone <file>` (ldns): all signatures and the NSEC(3) chain. Ok: "Zone is verified and complete"; a bad
 *   one: "Error: Bogus DNSSEC signature for www.example.test.\tA" … "There were errors in the zone" (exit 35 then).
 * - `kzonecheck -o <zone> --dnssec on <file>` (Knot): zone semantics, and with `--dnssec on` (forced, not guessed from
 *   the zone's contents) the DNSSEC records too, signatures verified. Ok: no output at all; a bad one:
 *   "[www.example.test.] no valid signature for a record (record type A)" and an "Error summary:" (exit 1).
 */
export async function verifyZoneWithPeers(zone: string, zoneText: string): Promise<PeerVerdict[]> {
  const origin = fqdn(zone);
  return withTempDir('dnssec-verify-', async (dir) => {
    const file = join(dir, 'zone.db');
    writeFileSync(file, zoneFileFromAxfr(zone, zoneText));
    const runs: Array<[PeerVerdict['tool'], string[]]> = [
      ['dnssec-verify', ['-o', origin, file]],
      ['ldns-verify-zone', [file]],
      ['kzonecheck', ['-o', origin, '--dnssec', 'on', file]],
    ];
    return Promise.all(
      runs.map(async ([tool, args]) => {
        const { code, output } = await runTool(tool, args, dir);
        return { tool, ok: code === 0, output };
      }),
    );
  });
}

/**
 * A DS record's RDATA in one form: "<tag> <alg> <digest type> <DIGEST>", the digest in upper-case hex without the
 * spaces some tools split it with (dnssec-signzone's dsset file, dig). Takes a whole RR ("example.test. 3600 IN DS
 * …") or just the RDATA.
 */
export function normalizeDs(text: string): string {
  const fields = text.trim().split(/\s+/);
  const at = fields.findIndex((f) => f.toUpperCase() === 'DS');
  const rdata = at >= 0 ? fields.slice(at + 1) : fields;
  const [tag, alg, digestType, ...digest] = rdata;
  if (!tag || !alg || !digestType || digest.length === 0 || !/^\d+$/.test(tag)) {
    throw new Error(`not a DS record: ${text}`);
  }
  return `${tag} ${alg} ${digestType} ${digest.join('').toUpperCase()}`;
}

/** A named.conf `trust-anchors` statement that trusts `zone` by the given DS records. */
function trustAnchors(zone: string, ds: string[]): string {
  if (ds.length === 0) throw new Error(`no DS records to anchor ${zone} with`);
  const lines = ds.map((d) => {
    const [tag, alg, digestType, digest] = normalizeDs(d).split(' ');
    return `  "${fqdn(zone)}" static-ds ${tag} ${alg} ${digestType} "${digest}";`;
  });
  return `trust-anchors {\n${lines.join('\n')}\n};\n`;
}

export interface DelvResult {
  /** "; fully validated" (an answer) or "; negative response, fully validated" (NXDOMAIN or NODATA, proven). */
  validated: boolean;
  /**
   * A resolution failure that is not a proven negative answer: ";; resolution failed: RRSIG failed to verify" (a bad
   * signature, after ";; validating www.example.test/A: no valid signature found"), "…: broken trust chain" (the
   * DNSKEY RRset does not match the DS), "…: failure" (connection refused, a referral). delv also prints
   * ";; resolution failed: ncache nxdomain" / "ncache nxrrset" for validated negative answers; those are not failures.
   * An insecure answer ("; unsigned answer") is neither validated nor failed.
   */
  failed: boolean;
  output: string;
}

/**
 * Asks `name`/`type` with BIND's `delv`, which validates the answer itself from the zone's DS as its only trust anchor:
 * `delv @<host> -p <port> -a <anchors file> +root=<zone> <name> <type>`. The anchors file holds a `trust-anchors`
 * statement with `static-ds` entries; `+root=<zone>` makes the zone the trust point (without it delv looks for a
 * root anchor in that file and stops: "No trusted keys were loaded"), and with `-a` the built-in root key is not used.
 * Every query of delv goes to the server given. delv exits 0 on validation failures; a non-zero exit (a bad anchors
 * file, a bad option) throws.
 */
export async function delvQuery(opts: {
  server: { host: string; port: number };
  zone: string;
  ds: string[];
  name: string;
  type: string;
}): Promise<DelvResult> {
  return withTempDir('delv-', async (dir) => {
    const anchors = join(dir, 'anchors.conf');
    writeFileSync(anchors, trustAnchors(opts.zone, opts.ds));
    const args = [
      `@${opts.server.host}`,
      '-p',
      String(opts.server.port),
      '-a',
      anchors,
      `+root=${fqdn(opts.zone)}`,
      opts.name,
      opts.type,
    ];
    const { code, output } = await runTool('delv', args, dir, 20_000);
    if (code !== 0) throw new Error(`delv ${args.join(' ')} exited with ${code}:\n${output}`);
    return {
      validated: /^; (negative response, )?fully validated$/m.test(output),
      failed: /^;; resolution failed: (?!ncache nx(domain|rrset)$)/m.test(output),
      output,
    };
  });
}

export interface ValidatingResolver {
  host: string;
  port: number;
  dir: string;
  /** What named printed so far (querylog on: every query it got). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts BIND 9 `named` as a validating recursive resolver on 127.0.0.1 (a free port) that trusts `zone` by its DS
 * records (`trust-anchors { "<zone>" static-ds …; }`, `dnssec-validation yes`, so no root key) and sends every query
 * for the zone to `primary`. How that is wired, and why:
 * - a `forward only` zone with `forwarders { <host> port <P>; }`: a `static-stub` zone would be the natural choice,
 *   but its `server-addresses` take no port in BIND 9.18 ("missing ';' before 'port'"), nor does a `server` clause;
 * - only the primary's address may be queried: `server 0.0.0.0/0 { bogus yes; }` with the primary's /32 not bogus (the
 *   more specific clause wins; a bogus forwarder gets nothing, tried), IPv4 only (`-4`), and a local root hint to an
 *   address that is bogus too, so named neither uses the built-in hints nor primes the root on the internet;
 * - `controls { };`: no rndc channel on 127.0.0.1:953 (the default when /etc/bind/rndc.key exists).
 * Ask it with RD set (dig's default, or `+rec`); an answer it validated has the AD flag, a bogus one is SERVFAIL.
 */
export async function startValidatingResolver(opts: {
  zone: string;
  primary: { host: string; port: number };
  ds: string[];
}): Promise<ValidatingResolver> {
  requireDnssecTool('named');
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(opts.primary.host)) {
    throw new Error(`the primary must be an IPv4 address, not ${opts.primary.host}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'named-resolver-'));
  const port = await freePort();
  writeFileSync(join(dir, 'root.hints'), '. 3600000 NS a.root.invalid.\na.root.invalid. 3600000 A 192.0.2.1\n');
  writeFileSync(
    join(dir, 'named.conf'),
    `
options {
  directory "${dir}";
  pid-file "${join(dir, 'named.pid')}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion yes;
  allow-query { 127.0.0.1; };
  allow-recursion { 127.0.0.1; };
  dnssec-validation yes;
  notify no;
  querylog yes;
};
controls { };
server 0.0.0.0/0 { bogus yes; };
server ${opts.primary.host}/32 { bogus no; };
${trustAnchors(opts.zone, opts.ds)}
zone "." { type hint; file "${join(dir, 'root.hints')}"; };
zone "${fqdn(opts.zone)}" { type forward; forward only; forwarders { ${opts.primary.host} port ${opts.primary.port}; }; };
`,
  );
  const { child, log } = spawnNamed(join(dir, 'named.conf'), ['-4']);
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  const resolver: ValidatingResolver = { host: '127.0.0.1', port, dir, log, stop };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`named (validating resolver) exited: ${log().slice(-2000)}`);
    }
    if (/^\S+ \S+ running$/m.test(log())) return resolver;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`named (validating resolver) did not start within 10 s: ${log().slice(-2000)}`);
}

/**
 * DNSKEY RR lines for the tools' key files: RR lines as they are (with a TTL added where there is none), bare RDATA
 * ("257 3 13 …") under the zone's name.
 */
function dnskeyFile(zone: string, dnskeyText: string): string {
  const lines = dnskeyText
    .split('\n')
    .filter(isRecordLine)
    .map((l) => {
      if (!/\sDNSKEY\s/i.test(` ${l} `)) return `${fqdn(zone)} 3600 IN DNSKEY ${l.trim()}`;
      // a K*.key file's record has no TTL, which dnssec-dsfromkey -f refuses ("no TTL specified; zone rejected")
      const [owner, ...rest] = l.trim().split(/\s+/);
      return /^\d+$/.test(rest[0] ?? '') ? l.trim() : `${owner} 3600 ${rest.join(' ')}`;
    });
  if (lines.length === 0) throw new Error(`no DNSKEY records in: ${dnskeyText}`);
  return `${lines.join('\n')}\n`;
}

/** The DS lines a tool printed, normalised and in a stable order (by digest type, then key tag). */
function dsLines(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => /\sDS\s/.test(l) && isRecordLine(l))
    .map(normalizeDs)
    .sort((a, b) => {
      const [ta, , da] = a.split(' ').map(Number) as [number, number, number];
      const [tb, , db] = b.split(' ').map(Number) as [number, number, number];
      return da - db || ta - tb;
    });
}

/**
 * BIND's DS records (SHA-256 and SHA-384) for the zone's key-signing keys (SEP flag, 257) among `dnskeyText` (DNSKEY
 * RR lines, e.g. dig's answer, or bare RDATA): `dnssec-dsfromkey -2 -f <file> <zone>` and
 * `dnssec-dsfromkey -a SHA-384 -f <file> <zone>`. Normalised RDATA (see normalizeDs).
 */
export async function dsFromDnskey(zone: string, dnskeyText: string): Promise<string[]> {
  return withTempDir('dsfromkey-', async (dir) => {
    const file = join(dir, 'dnskey.db');
    writeFileSync(file, dnskeyFile(zone, dnskeyText));
    let out = '';
    for (const digest of [['-2'], ['-a', 'SHA-384']]) {
      const { code, output } = await runTool('dnssec-dsfromkey', [...digest, '-f', file, fqdn(zone)], dir);
      if (code !== 0) throw new Error(`dnssec-dsfromkey ${digest.join(' ')} exited with ${code}:\n${output}`);
      out += output;
    }
    return dsLines(out);
  });
}

/**
 * ldns's DS records (SHA-256 and SHA-384) for the key-signing keys among `dnskeyText`, as dsFromDnskey gives BIND's:
 * `ldns-key2ds -n -2 <file>` and `ldns-key2ds -n -4 <file>` (-n: to stdout, not to K*.ds files; keys without the SEP
 * flag are skipped as dnssec-dsfromkey skips them).
 */
export async function ldnsKey2Ds(zone: string, dnskeyText: string): Promise<string[]> {
  return withTempDir('key2ds-', async (dir) => {
    const file = join(dir, 'dnskey.db');
    writeFileSync(file, dnskeyFile(zone, dnskeyText));
    let out = '';
    for (const digest of ['-2', '-4']) {
      const { code, output } = await runTool('ldns-key2ds', ['-n', digest, file], dir);
      if (code !== 0) throw new Error(`ldns-key2ds ${digest} exited with ${code}:\n${output}`);
      out += output;
    }
    return dsLines(out);
  });
}

export interface BindSignedZone {
  /** The signed zone, one record per line (`dnssec-signzone -O full`). */
  signed: string;
  /** The key-signing key's DNSKEY RR (its .key file's record line). */
  ksk: string;
  /** The zone-signing key's DNSKEY RR. */
  zsk: string;
  /** The DS dnssec-signzone wrote for the parent (dsset-<zone>.), normalised: SHA-256 of the KSK. */
  dsset: string[];
}

/**
 * Signs a zone with BIND's own tools, the known-good reference: a KSK and a ZSK (ECDSA P-256, algorithm 13) from
 * `dnssec-keygen -a ECDSAP256SHA256 [-f KSK]`, then `dnssec-signzone -S -K <dir> -O full -o <zone> -f <out> <in>`
 * (smart signing: the keys found in <dir> are added to the zone; NSEC, default validity 30 days).
 */
export async function signZoneWithBind(
  zone: string,
  zoneText: string,
  /** NSEC3 (`-3 - -H 0`: RFC 9276's no salt, no extra iteration), with Opt-Out (`-A`) or not; absent: NSEC. */
  nsec3?: { optOut: boolean },
): Promise<BindSignedZone> {
  const origin = fqdn(zone);
  return withTempDir('dnssec-sign-', async (dir) => {
    const keyOf = async (flags: string[]) => {
      const { code, output } = await runTool(
        'dnssec-keygen',
        ['-q', '-K', dir, '-a', 'ECDSAP256SHA256', ...flags, origin],
        dir,
      );
      if (code !== 0) throw new Error(`dnssec-keygen exited with ${code}:\n${output}`);
      const base = output.trim().split('\n').pop() ?? '';
      return (
        readFileSync(join(dir, `${base}.key`), 'utf8')
          .split('\n')
          .find((l) => isRecordLine(l) && /\sDNSKEY\s/.test(l))
          ?.trim() ?? ''
      );
    };
    const ksk = await keyOf(['-f', 'KSK']);
    const zsk = await keyOf([]);
    writeFileSync(join(dir, 'zone.db'), zoneFileFromAxfr(zone, zoneText));
    const { code, output } = await runTool(
      'dnssec-signzone',
      [
        ...(nsec3 ? ['-3', '-', '-H', '0', ...(nsec3.optOut ? ['-A'] : [])] : []),
        ...['-S', '-K', dir, '-d', dir, '-O', 'full', '-o', origin, '-f', join(dir, 'signed.db'), join(dir, 'zone.db')],
      ],
      dir,
    );
    if (code !== 0) throw new Error(`dnssec-signzone exited with ${code}:\n${output}`);
    const dssetFile = readdirSync(dir).find((f) => f.startsWith('dsset-'));
    return {
      signed: readFileSync(join(dir, 'signed.db'), 'utf8'),
      ksk,
      zsk,
      dsset: dssetFile ? dsLines(readFileSync(join(dir, dssetFile), 'utf8')) : [],
    };
  });
}

/**
 * A copy of a one-record-per-line signed zone with the signature bytes of the RRSIG over `owner`/`covered` altered
 * (one byte of the decoded signature inverted, the rest as it was): a zone that must no longer validate there.
 */
export function tamperRrsig(zoneText: string, owner: string, covered: string): string {
  let hit = false;
  const lines = zoneText.split('\n').map((line) => {
    const f = line.trim().split(/\s+/);
    // owner ttl class RRSIG covered alg labels origttl expiration inception tag signer signature…
    const at = f.findIndex((x) => x.toUpperCase() === 'RRSIG');
    if (hit || at < 1 || !isRecordLine(line) || f[0]?.toLowerCase() !== fqdn(owner).toLowerCase()) return line;
    if (f[at + 1]?.toUpperCase() !== covered.toUpperCase()) return line;
    const sig = Buffer.from(f.slice(at + 9).join(''), 'base64');
    sig[10] = (sig[10] ?? 0) ^ 0xff;
    hit = true;
    return [...f.slice(0, at + 9), sig.toString('base64')].join(' ');
  });
  if (!hit) throw new Error(`no RRSIG over ${owner} ${covered} on a line of its own`);
  return lines.join('\n');
}
