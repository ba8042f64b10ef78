import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../gateway/host/config/load';
import { createLogger } from '../../platform/log';
import { buildSubgraphServer, subgraphServerOptions } from '../../gateway/host/subgraph-server';
import { buildSubgraph } from '../../gateway/host/subgraphs';
import { createSystem, type System, type SystemOverrides } from '../../gateway/host/system';
import { SUBGRAPH_DESCRIPTORS } from '../../subgraphs';
import type { Engines } from '../../subgraphs/descriptor';
import { startDns } from '../../gateway/host/dns';
import type { Subgraph } from '../../subgraphs/subgraph';

/**
 * SUBGRAPH_MODE=remote runs every subgraph as its own HTTP service (as `npm run subgraph` does) and points the
 * gateway at them with subgraph URLs; the same tests must pass in both modes.
 */
export const SUBGRAPH_MODE = process.env.SUBGRAPH_MODE === 'remote' ? 'remote' : 'in-process';

/** The DNS API's `admin` password in test systems (set through ADMIN_PASSWORD). */
export const TEST_ADMIN_PASSWORD = 'admin-password-for-tests';

/**
 * scrypt parameters of the passwords hashed in test systems (overrides.scrypt): the smallest cost, the same format.
 * The production cost (N=2^15, ~150 ms a hash on a shared core) is paid by the processes of the built program and
 * tested in subgraphs/dns-api/identity; a test system would pay it at every start, login and password change.
 */
export const TEST_SCRYPT = Object.freeze({ N: 1024, r: 8, p: 1 });

export interface RunningSystem {
  url: string;
  system: System;
  /** Every subgraph object, in this process or served by a subgraph server of this test (remote mode). */
  subgraphs: Map<string, Subgraph>;
  /** Stops the subgraph server of a remote subgraph (remote mode only), to test faults. */
  remoteServers: Map<string, { url: string; stop(): Promise<void> }>;
  close(): Promise<void>;
}

/** Starts the whole gateway on an ephemeral 127.0.0.1 port with test-friendly settings (own data dir, no DNS listeners, silent logs). */
export async function startSystem(
  env: Record<string, string> = {},
  overrides: SystemOverrides = {},
): Promise<RunningSystem> {
  const base = loadConfig({
    env: {
      PORT: '0',
      DNS_PORT: '0',
      DNS_API_PORT: '0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'onegraph-test-')),
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, // else the first start prints a generated one
      ...env,
    },
  });
  // a data directory made here is removed at close (it holds a master key); one the caller gave is the caller's
  const ownDataDir = env.DATA_DIR === undefined ? base.dataDir : undefined;
  const log = createLogger(base.logLevel);
  overrides = { scrypt: TEST_SCRYPT, ...overrides };
  const remotes: Array<{ close(): Promise<unknown> }> = [];
  const subgraphUrls: Record<string, string> = { ...base.subgraphUrls };
  const remoteSubgraphs = new Map<string, Subgraph>();
  const remoteServers = new Map<string, { url: string; stop(): Promise<void> }>();
  if (SUBGRAPH_MODE === 'remote') {
    const serve = async (subgraph: Subgraph) => {
      const { app } = await buildSubgraphServer(subgraph, log, subgraphServerOptions(base));
      const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/graphql`;
      subgraphUrls[subgraph.name] = url;
      remoteSubgraphs.set(subgraph.name, subgraph);
      let stopped: Promise<void> | undefined;
      const stop = () => (stopped ??= app.close());
      remoteServers.set(subgraph.name, { url, stop });
      remotes.push({ close: () => stop().then(() => subgraph.close()) });
    };
    // The subgraphs served over HTTP share the system's engines (handed to createSystem below).
    const needsDns = SUBGRAPH_DESCRIPTORS.some((d) => !subgraphUrls[d.name] && d.needs.includes('dns'));
    if (needsDns && !overrides.dns) overrides = { ...overrides, dns: await startDns(base, log) };
    const engines: Engines = overrides.dns
      ? {
          dns: {
            store: overrides.dns.store,
            engine: overrides.dns.engine,
            toolKey: overrides.dns.toolKey,
            vault: overrides.dns.vault,
          },
        }
      : {};
    for (const descriptor of SUBGRAPH_DESCRIPTORS) {
      if (!subgraphUrls[descriptor.name]) await serve(await buildSubgraph(descriptor, base, log, engines, overrides));
    }
    for (const extra of overrides.extraSubgraphs ?? []) if (!subgraphUrls[extra.name]) await serve(extra);
  }
  const config = { ...base, subgraphUrls };
  const system = await createSystem(config, log, overrides);
  const url = await system.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    system,
    subgraphs: new Map([...system.subgraphs, ...remoteSubgraphs]),
    remoteServers,
    close: async () => {
      await system.close();
      for (const r of remotes) await r.close();
      if (ownDataDir !== undefined) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  body: {
    data?: T | null;
    errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
  };
}

export async function graphql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GraphQLResponse<T>> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as GraphQLResponse<T>['body'] };
}

export async function getJson(url: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(url);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the test asserts on the text
  }
  return { status: res.status, body, headers: res.headers };
}
