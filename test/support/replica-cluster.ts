import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import pg from 'pg';
import { freeDnsPort, freePort } from '../bench/processes';
import { gatewayStarted, launchGateway, type GatewayProcess } from './gateway-process';

/**
 * Replicas as an operator runs them: the built program (`node dist/gateway/main.js`) started several times, each with
 * its own DATA_DIR, HTTP and DNS ports, all on one PostgreSQL database made for the test (dropped at the end).
 */
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Redis every replica is given, as the operations guide says (sessions, throttles, operations, market cache). */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A database of its own for a test file: its URL, and `drop` (also ends every connection still open to it). */
export async function testDatabase(prefix: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await dropRedisKeys(`${name}:`);
    },
  };
}

/** Deletes the keys replicas of a test database left in Redis (their prefix). */
async function dropRedisKeys(prefix: string): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(keys);
  } finally {
    await client.quit();
  }
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

/** One master key per database, as every replica of it must be given the same (a replica with another refuses). */
const masterKeys = new Map<string, string>();
function masterKeyOf(databaseUrl: string): string {
  let key = masterKeys.get(databaseUrl);
  if (!key) masterKeys.set(databaseUrl, (key = randomBytes(32).toString('base64')));
  return key;
}

/**
 * Starts a replica on `databaseUrl` with what every replica of that database gets — one master key, one Redis under a
 * prefix of the database's own — and waits until /readyz says ready. `env` adds settings.
 */
export async function startReplica(
  name: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Replica> {
  const settings: Record<string, string> = {
    PORT: String(await freePort()),
    DNS_PORT: String(await freeDnsPort()),
    DATA_DIR: mkdtempSync(join(tmpdir(), `replica-${name}-`)),
    DATABASE_URL: databaseUrl,
    MASTER_KEY: masterKeyOf(databaseUrl),
    REDIS_URL,
    REDIS_PREFIX: `${new URL(databaseUrl).pathname.slice(1)}:`,
    ...env,
  };
  let outputs = '';
  let current: GatewayProcess | undefined;
  const launch = async (): Promise<ChildProcess> => {
    if (current) outputs += current.output();
    current = await launchGateway(settings);
    await gatewayStarted(current, '/readyz').catch(async (err: unknown) => {
      current?.child.kill('SIGKILL');
      throw new Error(`replica ${name}: ${(err as Error).message}`);
    });
    return current.child;
  };
  const child = await launch();
  const base = current!.base;
  const replica: Replica = {
    name,
    url: base,
    api: `${base}/api/v1`,
    dns: { host: '127.0.0.1', port: Number(settings.DNS_PORT) },
    dataDir: settings.DATA_DIR!,
    child,
    output: () => outputs + (current?.output() ?? ''),
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
