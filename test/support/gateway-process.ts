import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { freeDnsPort, freePort } from '../bench/processes';
import { TEST_ADMIN_PASSWORD } from './system';

/** The built program as `npm start` runs it. */
export const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
export const STARTUP_MS = 45_000;

/** One gateway process (the built program) with a DATA_DIR of its own. */
export interface GatewayProcess {
  child: ChildProcess;
  dataDir: string;
  base: string;
  dnsPort: number;
  output(): string;
  exited: Promise<number | null>;
}

/** Polls `check` until it gives a value (not undefined), up to `ms`: waits for a condition, never a fixed time. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, ms = STARTUP_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the built program; `env` adds settings or, given as undefined, leaves them out. A DATA_DIR is made unless
 * `env.DATA_DIR` names one, and free ports are taken unless `env.PORT` / `env.DNS_PORT` name them; the caller
 * removes the directory (`dataDir`). `options.main` runs another copy of the program (from `options.cwd`).
 */
export async function launchGateway(
  env: Record<string, string | undefined>,
  options: { main?: string; cwd?: string } = {},
): Promise<GatewayProcess> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'gateway-process-'));
  const port = env.PORT ?? String(await freePort());
  const dnsPort = Number(env.DNS_PORT ?? (await freeDnsPort()));
  const { NODE_ENV: _jest, ...userEnv } = process.env;
  const merged: Record<string, string | undefined> = {
    ...userEnv,
    PORT: port,
    DNS_PORT: String(dnsPort),
    DNS_API_PORT: '0',
    DNS_WORKERS: '0',
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    MARKET_CLOCK: '2026-11-20T18:00:00Z',
    ...env,
  };
  // a setting given as undefined is left out (spawn would pass the text "undefined")
  const childEnv = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined));
  const child = spawn(process.execPath, [options.main ?? MAIN], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, dataDir, base: `http://127.0.0.1:${port}`, dnsPort, output: () => output, exited };
}

/**
 * The process up and answering `probe` (/healthz, or /readyz for one that must also serve what the store has) with
 * 200; it exiting first fails with its output.
 */
export async function gatewayStarted(p: GatewayProcess, probe = '/healthz'): Promise<GatewayProcess> {
  await until(`the gateway answering ${probe}`, async () => {
    if (p.child.exitCode !== null) throw new Error('exited');
    return (await fetch(`${p.base}${probe}`)).status === 200 ? true : undefined;
  }).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n${p.output().slice(-3000)}`);
  });
  return p;
}

/** SIGTERM, and its exit code once it has exited. */
export async function stopGateway(p: GatewayProcess): Promise<number | null> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  return p.exited;
}

/** login_token on the process's /api.php: the session id, or undefined when refused. */
export async function toolLogin(p: GatewayProcess, token: string): Promise<string | undefined> {
  const res = await fetch(`${p.base}/api.php`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ action: 'login_token', token }).toString(),
  });
  return ((await res.json()) as { session_id?: string }).session_id;
}

/** A zone's DNSKEY records as the process's DNS server answers them (sorted). */
export async function dnskeysAt(p: GatewayProcess, zone: string): Promise<string[]> {
  const answer = await new DnsClient({ server: { host: '127.0.0.1', port: p.dnsPort } }).query(zone, 'TYPE48'); // DNSKEY
  return answer.answers.map((r) => r.value).sort();
}
