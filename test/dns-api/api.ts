import { Agent, fetch as undiciFetch } from 'undici';
import { freeDnsPort, freePort } from '../bench/processes';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/** Helpers of the DNS API's behaviour tests: HTTP calls with a token, logins, and a system with DNS listening. */

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  /** The parsed JSON body (or the text when it is not JSON). */
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  /** Connect from this local address (127.0.0.2, …): another client as far as the server can tell. */
  from?: string;
  /** A JSON value, or a string sent as it is (malformed JSON, other content types). */
  body?: unknown;
  headers?: Record<string, string>;
}

const agents = new Map<string, Agent>();

/** A connection pool whose sockets are bound to `localAddress` (kept for the test file's life). */
export function agentFrom(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
}

/** One HTTP call to `base` + `path` (base ends with `/api/v1`). */
export async function call<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const init = { method, headers, body };
  const res = options.from
    ? await undiciFetch(`${base}${path}`, { ...init, dispatcher: agentFrom(options.from) })
    : await fetch(`${base}${path}`, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: tests look at the text
  }
  return { status: res.status, headers: new Headers([...res.headers]), body: parsed as T, text };
}

/** A token for the user, or a failed test saying why login did not work. */
export async function login(base: string, username: string, password: string): Promise<string> {
  const res = await call<{ token: string }>(base, 'POST', '/auth/login', { body: { username, password } });
  if (res.status !== 200) throw new Error(`login of ${username} answered ${res.status}: ${res.text}`);
  return res.body.token;
}

/** POST /graphql with an optional bearer token. */
export async function gql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<{
  status: number;
  body: { data?: T | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as never };
}

export interface DnsApiSystem {
  sys: RunningSystem;
  /** `/api/v1` on the gateway's port. */
  gateway: string;
  /** `/api/v1` alone on its own listener (DNS_API_PORT). */
  own: string;
  /** The embedded DNS server (UDP and TCP). */
  dns: { host: string; port: number };
  adminToken: string;
  close(): Promise<void>;
}

/**
 * The whole system with the embedded DNS server listening and the DNS API also on a listener of its own (as
 * DNS_API_PORT makes `npm start` do), logged in as `admin`. No demo zone unless asked for.
 */
export async function startDnsApiSystem(env: Record<string, string> = {}): Promise<DnsApiSystem> {
  const dnsPort = env.DNS_PORT ? Number(env.DNS_PORT) : await freeDnsPort();
  const sys = await startSystem({
    DNS_PORT: String(dnsPort),
    DNS_API_PORT: String(await freePort()),
    SEED_DEMO: 'false',
    MARKET_CLOCK: '2026-11-20T18:00:00Z',
    ...env,
  });
  const apiApp = sys.system.apiApp;
  if (!apiApp) throw new Error('the system built no DNS API listener although DNS_API_PORT is set');
  const own = `${await apiApp.listen({ port: 0, host: '127.0.0.1' })}/api/v1`;
  const gateway = `${sys.url}/api/v1`;
  return {
    sys,
    gateway,
    own,
    dns: { host: '127.0.0.1', port: dnsPort },
    adminToken: await login(gateway, 'admin', TEST_ADMIN_PASSWORD),
    close: () => sys.close(),
  };
}

/** Creates a user as `admin` and logs it in. */
export async function userWithRole(
  api: DnsApiSystem,
  username: string,
  role: 'admin' | 'operator' | 'viewer',
  password = `${username}-password-1`,
): Promise<{ id: string; token: string; password: string }> {
  const res = await call<{ id: string }>(api.gateway, 'POST', '/users', {
    token: api.adminToken,
    body: { username, email: `${username}@example.test`, password, role },
  });
  if (res.status !== 201) throw new Error(`creating ${username} answered ${res.status}: ${res.text}`);
  return { id: res.body.id, token: await login(api.gateway, username, password), password };
}
