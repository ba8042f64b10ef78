/**
 * Profiling aid for the dynamic update path (not part of `npm run bench`): starts the engine on a SQLite store in a
 * temporary directory with the bench's 1000-host zone and sends signed updates one at a time, as the bench does.
 * Run under `node --cpu-prof dist/bench/test/bench/dns-update-profile.js [updates] [answer workers]`; prints updates/s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { benchZone } from './dns';
import { defined } from '../support/defined';

const ZONE = 'bench.test';
const SECRET = Buffer.from('benchmark-tsig-secret-of-32-byte').toString('base64');
const KEY = defined(
  parseKeyFile(`key "bench-key" { algorithm hmac-sha256; secret "${SECRET}"; };`)[0],
  'the bench key',
);

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 2000);
  const dir = mkdtempSync(join(tmpdir(), 'dns-update-profile-'));
  const store = await openSqliteStore({ file: join(dir, 'zones.sqlite') });
  await importZoneFile(store, ZONE, benchZone());
  const workers = { count: Number(process.argv[3] ?? 0), store: { dataDir: dir } };
  const engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, keys: [KEY], workers });
  const client = new DnsClient({ server: { host: '127.0.0.1', port: engine.server?.port as number }, key: KEY });
  const send = (i: number): Promise<void> =>
    client.update(ZONE, [
      { op: 'add', name: `u${i}.${ZONE}`, type: 'A', ttl: 300, value: `10.200.${(i >> 8) & 255}.${i & 255}` },
    ]);
  const t0 = performance.now();
  let failed = 0;
  for (let i = 0; i < count; i++) await send(i).catch(() => failed++); // not NOERROR (or no answer)
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ updates: count, failed, perSecond: Math.round(count / seconds) }));
  await engine.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
