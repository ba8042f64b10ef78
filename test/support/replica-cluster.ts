import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { freeDnsPort, freePort } from '../bench/processes';
import { TEST_ADMIN_PASSWORD } from './system';

/**
 * Replicas as an operator runs them: the built program (`node dist/gateway/main.js`) started several times, each with
 * its own DATA_DIR, HTTP and DNS ports, all on one PostgreSQL database made for the test (dropped at the end).
 */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database of its own for a test file: its URL, and `drop` (also ends every connection still open to it). */
export async function testDatabase(prefix: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => void (await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  };
}

/** One statement on the server's `postgres` database (what a test does as the operator would, with psql). */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export interface Replica {
  readonly name: string;
  readonly url: string;
  /** `${url}/api/v1` */
  readonly api: string;
  readonly dns: { host: string; port: number };
  readonly dataDir: string;
  child: ChildProcess;
  output(): string;
  /** Starts it again after `kill` (same data directory and ports). */
  restart(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a replica on `databaseUrl` and waits until /readyz says ready. `env` adds settings. */
export async function startReplica(
  name: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Replica> {
  const port = await freePort();
  const dnsPort = await freeDnsPort();
  const dataDir = mkdtempSync(join(tmpdir(), `replica-${name}-`));
  let output = '';
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        PORT: String(port),
        DNS_PORT: String(dnsPort),
        DNS_API_PORT: '0',
        DNS_WORKERS: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
        SEED_DEMO: 'false',
        LOG_LEVEL: 'warn',
        MARKET_CLOCK: '2026-11-20T18:00:00Z',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600 && child.exitCode === null; i++) {
      const ready = await fetch(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return child;
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`replica ${name} was not ready within 60 s:\n${output.slice(-3000)}`);
  };
  const replica: Replica = {
    name,
    url: `http://127.0.0.1:${port}`,
    api: `http://127.0.0.1:${port}/api/v1`,
    dns: { host: '127.0.0.1', port: dnsPort },
    dataDir,
    child: await launch(),
    output: () => output,
    restart: async () => {
      replica.child = await launch();
    },
    kill: async (signal = 'SIGKILL') => {
      const { child } = replica;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      // a replica that does not stop on SIGTERM within 15 s is killed (a test never waits forever)
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(force);
    },
  };
  return replica;
}

/** Stops the replicas and removes their data directories. */
export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(replicas.map((r) => r.kill('SIGTERM')));
  for (const r of replicas) rmSync(r.dataDir, { recursive: true, force: true });
}
