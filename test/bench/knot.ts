/**
 * Knot DNS 3 (Debian `knot`, and `kzonesign` from `knot-dnssecutils`) as a reference of the DNS benchmarks beside
 * BIND 9. `knotd` runs in the foreground as the current user with a knot.conf generated in a directory of its own
 * (rundir, storage, KASP database, journal and timers there), listening on 127.0.0.1 on a free port, with its default
 * workers (no udp-workers set: one per CPU) and no module (no RRL). Zones come from master files, never written back;
 * a zone with `signing` is signed by Knot as it loads it (an automatic policy: ECDSAP256SHA256, a KSK and a ZSK, NSEC),
 * like ours signs at its start.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireTool } from '../support/dns-peers';
import { startReference, type Server } from './dns-servers';
import { freePort } from './processes';

const run = promisify(execFile);

export interface KnotZone {
  name: string;
  file: string;
  /** Signed by knotd as it loads (dnssec-signing: on with the `bench` policy). */
  signing?: boolean;
}

/** The DNSSEC algorithm of Knot's `bench` policy: the one our signed benchmarks use. */
export const KNOT_ALGORITHM = 'ecdsap256sha256';

/**
 * knot.conf for `dir` (everything Knot keeps, under it) listening on 127.0.0.1@`port` (0: a configuration for the
 * offline tools, keymgr and kzonesign, which listen nowhere). The `bench` policy: NSEC, one KSK and one ZSK.
 */
export function knotConfig(dir: string, port: number, zones: KnotZone[]): string {
  const zone = (z: KnotZone): string[] => [
    `  - domain: ${z.name}`,
    `    file: "${z.file}"`,
    ...(z.signing ? ['    dnssec-signing: on', '    dnssec-policy: bench'] : []),
  ];
  return [
    'server:',
    `    rundir: "${dir}"`,
    ...(port ? [`    listen: 127.0.0.1@${port}`] : []),
    'database:',
    `    storage: "${dir}"`,
    'log:',
    '  - target: stderr',
    '    any: warning',
    'policy:',
    '  - id: bench',
    `    algorithm: ${KNOT_ALGORITHM}`,
    '    nsec3: off',
    'template:',
    '  - id: default',
    `    storage: "${dir}"`,
    '    zonefile-sync: -1', // never write the (signed) zone back into the master file the others read
    'zone:',
    ...zones.flatMap(zone),
    '',
  ].join('\n');
}

/** knotd serving `zones`, its files in a new directory under `root`; answers once the first zone's SOA does. */
export async function startKnot(label: string, root: string, zones: KnotZone[]): Promise<Server> {
  requireTool('knotd');
  const port = await freePort();
  const dir = join(root, `knot-${port}`);
  mkdirSync(dir);
  const conf = join(dir, 'knot.conf');
  writeFileSync(conf, knotConfig(dir, port, zones));
  return startReference(label, port, 'knotd', ['-c', conf], zones[0]?.name ?? '');
}

/**
 * A KSK and a ZSK of the `bench` policy's algorithm for `zone` in the KASP database of the configuration `conf`
 * (keymgr; made before anything is timed).
 */
export async function knotKeys(conf: string, zone: string): Promise<void> {
  requireTool('keymgr');
  for (const role of ['ksk=yes', 'zsk=yes'])
    await run('keymgr', ['-c', conf, zone, 'generate', `algorithm=${KNOT_ALGORITHM}`, role]);
}

/** Wall time of `kzonesign -c conf -o outDir zone`: signs the zone's master file with the keys of the KASP database. */
export async function kzonesign(conf: string, zone: string, outDir: string): Promise<number> {
  requireTool('kzonesign');
  const t0 = performance.now();
  await run('kzonesign', ['-c', conf, '-o', outDir, zone], { maxBuffer: 1 << 24 });
  return performance.now() - t0;
}
