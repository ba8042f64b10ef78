/**
 * Profiling aid for the dynamic update path (not part of `npm run bench`): starts the engine on a SQLite store in a
 * temporary directory with the bench's 1000-host zone and sends signed updates one at a time, as the bench does.
 * Run under `node --cpu-prof dist/test/bench/dns-update-profile.js [updates]`; prints updates/s.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as packet from 'dns-packet';
import { DnsEngine } from '../../dns/engine';
import { openSqliteStore } from '../../dns/store';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { signMessage } from '../../dns/tsig/tsig';
import { importZoneFile } from '../../dns/zone-files';
import { benchZone } from './dns';
import { defined } from '../helpers/defined';

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
  const engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, keys: [KEY] });
  const port = engine.server?.port as number;
  const socket = createSocket('udp4');
  let waiting: ((msg: Buffer) => void) | undefined;
  socket.on('message', (msg) => waiting?.(msg));
  const send = (i: number): Promise<Buffer> =>
    new Promise((resolve) => {
      waiting = resolve;
      const msg = packet.encode({
        type: 'query',
        id: i & 0xffff,
        flags: 5 << 11,
        questions: [{ name: ZONE, type: 'SOA', class: 'IN' }],
        authorities: [
          { name: `u${i}.${ZONE}`, type: 'A', class: 'IN', ttl: 300, data: `10.200.${(i >> 8) & 255}.${i & 255}` },
        ],
      });
      socket.send(signMessage(msg, KEY).message, port, '127.0.0.1');
    });
  const t0 = performance.now();
  let failed = 0;
  for (let i = 0; i < count; i++) if (((await send(i)).readUInt16BE(2) & 0xf) !== 0) failed++;
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ updates: count, failed, perSecond: Math.round(count / seconds) }));
  socket.close();
  await engine.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
