import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { hashPassword } from '../../platform/passwords';
import { fetch as undiciFetch } from 'undici';
import { agentFrom } from '../dns-api/api';
import { freeDnsPort, freePort } from '../bench/processes';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';
import { loadConfig } from '../../gateway/host/config/load';
import { DEMO_ZONE, startDns } from '../../gateway/host/dns';
import { createLogger } from '../../platform/log';
import type { SystemOverrides } from '../../gateway/host/system';

/**
 * Helpers of the DNS tool's integration tests: a whole system with the embedded DNS server listening and a CONFIG
 * file with a `dnsTool` section, and `/api.php` calls that keep the exact bytes of each answer.
 */

/** The demo zone's records (as gateway/host/dns.ts seeds it), loaded from a master file where tests configure zones. */
export const EXAMPLE_ZONE = DEMO_ZONE;

/** A small zone of its own: SOA, NS and one A record. */
export function smallZone(name: string, extra = ''): string {
  return `$ORIGIN ${name}.
$TTL 300
@     IN SOA ns1.${name}. hostmaster.${name}. ( 1 10800 3600 604800 300 )
      IN NS  ns1.example.test.
www   IN A   198.51.100.7
${extra}`;
}

export interface TsigKeySpec {
  name: string;
  secret: string;
}

/** A fresh HMAC-SHA256 key. */
export function newKey(name: string): TsigKeySpec {
  return { name, secret: randomBytes(32).toString('base64') };
}

/** A key file in BIND's format. */
export function keyFileText(keys: readonly TsigKeySpec[]): string {
  return keys.map((k) => `key "${k.name}" {\n\talgorithm hmac-sha256;\n\tsecret "${k.secret}";\n};\n`).join('');
}

export interface FileUserSpec {
  user: string;
  password: string;
  enabled?: boolean;
  roles?: string[];
}

/** A users file (`user:scrypt-hash[:enabled[:role,role]]`), hashes made with the DNS API's hashPassword. */
export async function usersFileText(users: readonly FileUserSpec[]): Promise<string> {
  const lines = ['# users of the DNS tool (tests)'];
  for (const u of users) {
    // The smallest cost hashPassword accepts keeps the tests quick; the format is the same.
    const hash = await hashPassword(u.password, { N: 1024, r: 8, p: 1 });
    lines.push([u.user, hash, u.enabled === false ? '0' : '1', (u.roles ?? []).join(',')].join(':'));
  }
  return `${lines.join('\n')}\n`;
}

export interface ToolSystem {
  sys: RunningSystem;
  url: string;
  /** The embedded DNS server. */
  dns: { host: string; port: number };
  /** The directory CONFIG, key and zone files were written to. */
  dir: string;
  close(): Promise<void>;
}

export interface ToolSystemOptions {
  /** The `dnsTool` section; may use the DNS port (a function of it). */
  dnsTool: Record<string, unknown> | ((dnsPort: number) => Record<string, unknown>);
  /** Other top-level settings of the CONFIG file (dnsAccess …). */
  config?: Record<string, unknown>;
  /** Keys of TSIG_KEYFILE (the embedded server and the tool read it). */
  keys?: readonly TsigKeySpec[];
  /** Zones loaded from master files at start (then no demo zone is seeded). */
  zoneFiles?: Record<string, string>;
  env?: Record<string, string>;
  /**
   * Keys only the embedded DNS server knows (instead of `keys`): the tool still reads `keys`, so a key of `keys`
   * missing here is one the server has never heard of.
   */
  serverKeys?: readonly TsigKeySpec[];
}

/** Starts the whole system, the embedded DNS server listening on a free port, with a CONFIG file as given. */
export async function startToolSystem(options: ToolSystemOptions): Promise<ToolSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'dns-tool-test-'));
  const dnsPort = await freeDnsPort();
  const zoneFiles: Record<string, string> = {};
  for (const [name, text] of Object.entries(options.zoneFiles ?? {})) {
    const file = join(dir, `${name}.zone`);
    writeFileSync(file, text);
    zoneFiles[name] = file;
  }
  const dnsTool = typeof options.dnsTool === 'function' ? options.dnsTool(dnsPort) : options.dnsTool;
  const config: Record<string, unknown> = { ...options.config, dnsTool };
  if (Object.keys(zoneFiles).length > 0) config.zoneFiles = zoneFiles;
  const env: Record<string, string> = { DNS_PORT: String(dnsPort), CONFIG: join(dir, 'config.yaml') };
  if (options.keys) {
    writeFileSync(join(dir, 'tsig.keys'), keyFileText(options.keys));
    env.TSIG_KEYFILE = join(dir, 'tsig.keys');
  }
  writeFileSync(join(dir, 'config.yaml'), stringify(config));
  const allEnv = {
    MARKET_CLOCK: '2026-11-20T18:00:00Z',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'dns-tool-data-')),
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    ...env,
    ...options.env,
  };
  let overrides: SystemOverrides = {};
  if (options.serverKeys) {
    // The embedded server started apart, from a key file of its own (as startSystem would start it otherwise).
    writeFileSync(join(dir, 'server.keys'), keyFileText(options.serverKeys));
    const serverConfig = loadConfig({
      env: { PORT: '0', LOG_LEVEL: 'silent', ...allEnv, TSIG_KEYFILE: join(dir, 'server.keys') },
    });
    overrides = { dns: await startDns(serverConfig, createLogger('silent')) };
  }
  const sys = await startSystem(allEnv, overrides);
  return { sys, url: sys.url, dns: { host: '127.0.0.1', port: dnsPort }, dir, close: () => sys.close() };
}

export interface ToolReply {
  status: number;
  headers: Headers;
  /** The body's exact text. */
  text: string;
  /** The parsed JSON body (undefined when not JSON). */
  body: unknown;
}

export interface ToolCall {
  /** GET (parameters in the query string) or POST (parameters as a form body). */
  method?: 'GET' | 'POST';
  /** Parameters in the query string (as well as, or instead of, the body). */
  query?: Record<string, string>;
  /** Sent as `Authorization: Bearer <bearer>`. */
  bearer?: string;
  /** Sent as the `dnsphpadmin` cookie. */
  cookie?: string;
  headers?: Record<string, string>;
  /** A raw body (with its content type in headers) instead of the form. */
  rawBody?: string;
  /** Connect from this local address (127.0.0.2, …): another client as far as the server can tell. */
  from?: string;
}

/**
 * One `/api.php` call: POST sends `params` as an `application/x-www-form-urlencoded` body, GET puts them in the
 * query string.
 */
export async function api(url: string, params: Record<string, string>, call: ToolCall = {}): Promise<ToolReply> {
  const method = call.method ?? 'POST';
  const query = new URLSearchParams(call.query ?? {});
  const headers: Record<string, string> = { ...call.headers };
  if (call.bearer !== undefined) headers.authorization = `Bearer ${call.bearer}`;
  if (call.cookie !== undefined) headers.cookie = `dnsphpadmin=${call.cookie}`;
  let body: string | undefined;
  if (method === 'GET') for (const [k, v] of Object.entries(params)) query.append(k, v);
  else if (call.rawBody !== undefined) body = call.rawBody;
  else {
    body = new URLSearchParams(params).toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  }
  const qs = query.toString();
  const target = `${url}/api.php${qs ? `?${qs}` : ''}`;
  const res = call.from
    ? await undiciFetch(target, { method, headers, body, dispatcher: agentFrom(call.from) })
    : await fetch(target, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: new Headers([...res.headers]), text, body: parsed };
}

/** PHP's json_encode(…, JSON_PRETTY_PRINT) of a value, as the tool writes bodies (with the newline after it). */
export function php(value: unknown): string {
  const json = JSON.stringify(value, null, 4)
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // PHP writes an empty array as [] and an empty object as {} on one line, as JSON.stringify does.
  return `${json}\n`;
}

/** The exact error body the tool answers. */
export function errorText(error: string, message: string, code = -1, loginFailure = false): string {
  return php(loginFailure ? { result: 'failure', error, message, code } : { error, message, code });
}

/** Asserts an error answer: HTTP 400, JSON, the exact body (keys in order). */
export function expectError(reply: ToolReply, error: string, message: string, code = -1, loginFailure = false): void {
  expect({ status: reply.status, text: reply.text }).toEqual({
    status: 400,
    text: errorText(error, message, code, loginFailure),
  });
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

/** Asserts a success answer: HTTP 200, JSON, the exact body. */
export function expectOk(reply: ToolReply, value: unknown): void {
  expect({ status: reply.status, text: reply.text }).toEqual({ status: 200, text: php(value) });
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

/** A session id from login_token (or a failed test saying why not). */
export async function loginToken(url: string, token: string): Promise<string> {
  const res = await api(url, { action: 'login_token', token });
  const body = res.body as { session_id?: string } | undefined;
  if (res.status !== 200 || !body?.session_id) throw new Error(`login_token answered ${res.status}: ${res.text}`);
  return body.session_id;
}

/** A session id from login (or a failed test saying why not). */
export async function loginUser(url: string, user: string, password: string): Promise<string> {
  const res = await api(url, { action: 'login', loginUsername: user, loginPassword: password });
  const body = res.body as { session_id?: string } | undefined;
  if (res.status !== 200 || !body?.session_id) throw new Error(`login answered ${res.status}: ${res.text}`);
  return body.session_id;
}

/** API tokens of the editors system: `ops` edits example.test, `reader` reads it, `nobody` has no role, `root` all. */
export const OPS = 'ops_9f2c1e0a4b3c2d1e0f9a8b7c6d5e4f3a';
export const READER = 'reader_5b7d3c2e1f0a9b8c7d6e5f4a3b2c1d0e';
export const NOBODY = 'nobody_0c0ffee1d2e3f4a5b6c7d8e9f0a1b2c3';
export const ROOT = 'root_7e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b';
/** Edits example.test but not its reverse zone. */
export const WEB = 'web_4d5e6f708192a3b4c5d6e7f8091a2b3c';

/** File login users of the editors system. */
export const USERS = {
  /** Roles from the map (editors). */
  alice: { user: 'alice', password: 'alice-password-1' },
  /** Disabled in the file. */
  bob: { user: 'bob', password: 'bob-password-1', enabled: false },
  /** Roles from the file (readers), which win over the map's editors. */
  carol: { user: 'carol', password: 'carol-password-1', roles: ['readers'] },
  /** No role anywhere. */
  dave: { user: 'dave', password: 'dave-password-1' },
} satisfies Record<string, FileUserSpec>;

/**
 * A system whose tool manages configured zones of the embedded server: example.test (rw for editors, r for
 * readers), other.test (r for editors), ro.test (read-only), refused.test and the reverse zone 2.0.192.in-addr.arpa
 * (signed with a key the server knows but does not let update them: REFUSED), badkey.test (signed with a key the
 * server does not know), dead.test (its update server a port where nothing listens).
 */
export async function startEditorsSystem(
  dnsTool: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<ToolSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'dns-tool-users-'));
  const usersFile = join(dir, 'users');
  writeFileSync(usersFile, await usersFileText(Object.values(USERS)));
  const toolKey = newKey('dns-tool');
  const limited = newKey('limited');
  const stranger = newKey('stranger');
  const deadPort = await freePort();
  return startToolSystem({
    keys: [toolKey, limited, stranger],
    serverKeys: [toolKey, limited],
    zoneFiles: {
      'example.test': EXAMPLE_ZONE,
      'other.test': smallZone('other.test'),
      'ro.test': smallZone('ro.test'),
      'refused.test': smallZone('refused.test'),
      'badkey.test': smallZone('badkey.test'),
      '2.0.192.in-addr.arpa': smallZone('2.0.192.in-addr.arpa'),
    },
    config: { dnsAccess: { updateKeys: { 'refused.test': ['dns-tool'], '2.0.192.in-addr.arpa': ['dns-tool'] } } },
    env,
    dnsTool: (port) => {
      const server = `127.0.0.1 ${port}`;
      return {
        tokens: [OPS, READER, NOBODY, ROOT, WEB],
        roles: {
          editors: { 'example.test': 'rw', 'other.test': 'r', '2.0.192.in-addr.arpa': 'rw' },
          readers: { 'example.test': 'r' },
          webmasters: { 'example.test': 'rw' },
        },
        usersRoles: {
          [OPS]: ['editors'],
          [READER]: ['readers'],
          [ROOT]: ['root'],
          [WEB]: ['webmasters'],
          alice: ['editors'],
          carol: ['editors'],
        },
        usersFile,
        dnsTimeoutMs: 1000,
        zones: {
          'example.test': {
            updateServer: server,
            tsigKey: 'dns-tool',
            note: 'The main zone / ünïcode',
            maintenanceNote: 'Moving on Friday',
            inTransfer: false,
          },
          'other.test': { updateServer: server, tsigKey: 'dns-tool' },
          'ro.test': { updateServer: server, tsigKey: 'dns-tool', readOnly: true },
          'refused.test': { updateServer: server, tsigKey: 'limited' },
          'badkey.test': { updateServer: server, tsigKey: 'stranger' },
          'dead.test': { updateServer: `127.0.0.1 ${deadPort}`, tsigKey: 'dns-tool' },
          '2.0.192.in-addr.arpa': { updateServer: server, tsigKey: 'limited' },
        },
        ...dnsTool,
      };
    },
  });
}
