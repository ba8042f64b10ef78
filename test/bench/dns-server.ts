/**
 * Child process of the DNS benchmark (`test/bench/dns.ts`): our DNS engine on a SQLite store in a given directory.
 *
 * Environment:
 * - BENCH_DNS_DATA   directory of the SQLite store (created when missing)
 * - BENCH_DNS_IMPORT master file to import first (zone name in BENCH_DNS_ZONE); BENCH_DNS_IMPORT_ONLY=1 exits after it
 * - BENCH_DNS_PORT   UDP/TCP port on 127.0.0.1 to answer on
 * - BENCH_DNS_KEYS   BIND key file with the TSIG keys allowed to update
 * - BENCH_DNS_ANSWER_CACHE=off  turns the answer cache off (to measure the uncached path)
 * - BENCH_DNS_WORKERS answer workers besides this process (default: as the gateway's DNS_WORKERS=auto)
 *
 * Prints one JSON line per step on stdout: {"event":"imported",…} and {"event":"listening",…}.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DnsEngine } from '../../dns/engine';
import { autoWorkerCount } from '../../dns/server/answer-workers';
import { openSqliteStore } from '../../dns/store';
import { readKeyFile } from '../../dns/tsig/keyfile';
import { importZoneFile } from '../../dns/zone-files';

function report(event: string, fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
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

  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const engine = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: Number(process.env.BENCH_DNS_PORT ?? 0),
    keys: process.env.BENCH_DNS_KEYS ? readKeyFile(process.env.BENCH_DNS_KEYS) : [],
    answerCache: process.env.BENCH_DNS_ANSWER_CACHE === 'off' ? { maxEntries: 0 } : undefined,
    workers: { count: Number(process.env.BENCH_DNS_WORKERS ?? autoWorkerCount()), store: { dataDir: dir } },
  });
  report('listening', {
    port: engine.server?.port,
    startMs: performance.now() - t0,
    rssBefore,
    rssAfter: process.memoryUsage().rss,
  });

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
