/**
 * Child process of the DNS benchmark (`test/bench/dns.ts`): our DNS engine on a SQLite store in a given directory.
 *
 * Environment:
 * - BENCH_DNS_DATA   directory of the SQLite store (created when missing)
 * - BENCH_DNS_IMPORT master file to import first (zone name in BENCH_DNS_ZONE); BENCH_DNS_IMPORT_ONLY=1 exits after it
 * - BENCH_DNS_PORT   UDP/TCP port on 127.0.0.1 to answer on
 * - BENCH_DNS_KEYS   BIND key file with the TSIG keys allowed to update
 * - BENCH_DNS_ANSWER_CACHE=off  turns the answer cache off (to measure the uncached path)
 * - BENCH_DNS_RRL=on|log-only  response rate limiting as DNS_RRL sets it (BENCH_DNS_RRL_RATE: responses per second,
 *   default 20); unset: off, as dnsperf floods from one address and the reference servers (BIND, Knot, PowerDNS) run
 *   without RRL
 * - BENCH_DNS_WORKERS answer workers besides this process (default: as the gateway's DNS_WORKERS=auto)
 * - BENCH_DNS_DNSSEC=<algorithm mnemonic, e.g. ECDSAP256SHA256>  serves BENCH_DNS_ZONE signed: a KSK and a ZSK of
 *   that algorithm are added to the store when the zone has no DNSSEC keys yet (private keys sealed by the vault of
 *   BENCH_DNS_DATA), and the engine signs every zone with keys as it starts
 *
 * Prints one JSON line per step on stdout: {"event":"imported",…}, {"event":"keys",…} (keys added) and
 * {"event":"listening",…} (startMs: DnsEngine.start, which signs every signed zone whole; signed: RRSIGs made).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { algorithmByName } from '../../dns/dnssec/algorithms';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { KSK_FLAGS, ZSK_FLAGS } from '../../dns/dnssec/keys';
import { newStoredKey } from '../../dns/dnssec/zone-signing';
import { DnsEngine } from '../../dns/engine/engine';
import { DEFAULT_RRL, type RrlOptions } from '../../dns/server';
import { autoWorkerCount } from '../../dns/engine/workers/answer-workers';
import { openSqliteStore } from '../../dns/store';
import { readKeyFile } from '../../dns/tsig/keyfile';
import { importZoneFile } from '../../dns/zonefile/zone-files';

function report(event: string, fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
}

/** RRL as BENCH_DNS_RRL asks (see above); off unless asked. */
function rrlFromEnv(): RrlOptions | false {
  const mode = process.env.BENCH_DNS_RRL;
  if (mode === undefined || mode === '' || mode === 'off') return false;
  if (mode !== 'on' && mode !== 'log-only') throw new Error(`BENCH_DNS_RRL: on, log-only or off, not ${mode}`);
  const rate = Number(process.env.BENCH_DNS_RRL_RATE ?? DEFAULT_RRL.responsesPerSecond);
  return { ...DEFAULT_RRL, mode, responsesPerSecond: rate };
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_DNS_DATA;
  if (!dir) throw new Error('BENCH_DNS_DATA is required');
  mkdirSync(dir, { recursive: true });
  const store = await openSqliteStore({ file: join(dir, 'zones.sqlite') });

  const zoneFile = process.env.BENCH_DNS_IMPORT;
  if (zoneFile) {
    const t0 = performance.now();
    const zone = await importZoneFile(store, process.env.BENCH_DNS_ZONE ?? '', readFileSync(zoneFile, 'utf8'));
    report('imported', { zone: zone.name, records: zone.recordsCount, ms: performance.now() - t0 });
    if (process.env.BENCH_DNS_IMPORT_ONLY === '1') {
      await store.close();
      return;
    }
  }

  const dnssec = process.env.BENCH_DNS_DNSSEC;
  let vault: KeyVault | undefined;
  if (dnssec) {
    const algorithm = algorithmByName(dnssec);
    if (!algorithm) throw new Error(`BENCH_DNS_DNSSEC: no DNSSEC algorithm ${dnssec}`);
    const opened = KeyVault.open({ dataDir: dir });
    vault = opened;
    const zone = process.env.BENCH_DNS_ZONE ?? '';
    if ((await store.listDnssecKeys(zone)).length === 0) {
      const t0 = performance.now();
      const now = Math.floor(Date.now() / 1000) - 60;
      const times = { publishAt: now, activateAt: now, lifetime: 365 * 86_400 };
      const keys = [KSK_FLAGS, ZSK_FLAGS].map((flags) => newStoredKey(zone, algorithm, flags, opened, times));
      await store.changeDnssecKeys(zone, { add: keys });
      report('keys', { zone, algorithm: algorithm.name, added: keys.length, ms: performance.now() - t0 });
    }
  }

  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const engine = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: Number(process.env.BENCH_DNS_PORT ?? 0),
    keys: process.env.BENCH_DNS_KEYS ? readKeyFile(process.env.BENCH_DNS_KEYS) : [],
    answerCache: process.env.BENCH_DNS_ANSWER_CACHE === 'off' ? { maxEntries: 0 } : undefined,
    workers: { count: Number(process.env.BENCH_DNS_WORKERS ?? autoWorkerCount()), store: { dataDir: dir } },
    // BENCH_DNS_KEPT=1: signed zones kept on disk (DATA_DIR/signed-zones), as the host runs it
    dnssec: vault && {
      vault,
      ...(process.env.BENCH_DNS_KEPT === '1' ? { keptDir: join(dir, 'signed-zones') } : {}),
    },
    rrl: rrlFromEnv(),
  });
  const startMs = performance.now() - t0;
  const rssAfter = process.memoryUsage().rss;
  let signed: number | undefined;
  if (vault) {
    // RRSIGs of every zone served (a walk over the nodes: after the start was timed)
    signed = 0;
    for (const name of engine.index.names())
      for (const node of engine.index.get(name)?.nodes.values() ?? []) signed += node.get('RRSIG')?.length ?? 0;
  }
  report('listening', { port: engine.server?.port, startMs, rssBefore, rssAfter, signed });

  const stop = (): void => {
    void engine
      .close()
      .then(() => store.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
