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
 * N all-in-one replicas (`node dist/gateway/main.js`) on one PostgreSQL database of their own, each with its own
 * DATA_DIR and one shared DNSSEC master key, as separate machines would run. `close()` stops them and drops the
 * database and the data directories.
 */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Replica {
  api: string;
  dnsPort: number;
  output(): string;
}

export interface Replicas {
  replicas: Replica[];
  databaseUrl: string;
  close(): Promise<void>;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function startOne(env: Record<string, string>, dataDir: string): Promise<Replica & { child: ChildProcess }> {
  const port = await freePort();
  const dnsPort = await freeDnsPort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      DNS_PORT: String(dnsPort),
      DNS_API_PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      MARKET_CLOCK: '2026-11-20T18:00:00Z',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return { child, api: `${base}/api/v1`, dnsPort, output: () => output };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`a replica did not start within 60 s:\n${output.slice(-3000)}`);
}

export async function startReplicas(count: number, env: Record<string, string> = {}): Promise<Replicas> {
  const database = `guards_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${database}`));
  const databaseUrl = new URL(ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  const shared = {
    DATABASE_URL: databaseUrl.toString(),
    DNSSEC_MASTER_KEY: randomBytes(32).toString('base64'),
    ...env,
  };
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const close = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  };
  try {
    const replicas: Replica[] = [];
    // the first one alone: it migrates the database and creates the admin user
    for (let i = 0; i < count; i++) {
      const dir = mkdtempSync(join(tmpdir(), `replica-${i}-`));
      dirs.push(dir);
      const started = await startOne(shared, dir);
      children.push(started.child);
      replicas.push(started);
    }
    return { replicas, databaseUrl: databaseUrl.toString(), close };
  } catch (err) {
    await close();
    throw err;
  }
}
