import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError } from 'graphql';
import { bearerCredential } from '../../../subgraphs/bearer';
import type { ToolErrorBody } from '../../../subgraphs/dns-tool/errors';
import { actionSpec, type ActionSpec } from '../../../subgraphs/dns-tool/tool/actions';
import { toolErrors, ToolError } from '../../../subgraphs/dns-tool/tool/errors';
import { helpPage } from '../../../subgraphs/dns-tool/tool/help';
import { editableType, ptrWanted, ttlOf } from '../../../subgraphs/dns-tool/tool/params';
import { ToolRequest, type Params } from '../../../subgraphs/dns-tool/tool/request';
import { isSessionId } from '../../../subgraphs/dns-tool/tool/sessions';
import { callerOf, type RequestCaller } from '../../context';
import type { ErrorShape } from '../../../platform/errors';
import type { Graph, PreparedOperation } from '../../graph';
import { statusText } from '../errors';
import { requestOrigin, requestScheme } from './cross-site';
import type { RestInterface } from '../interface';
import { DnsToolOps as Ops } from './operations';
import { phpPrettyJson, type PhpJson } from './php-json';

/** The session cookie of the original tool. */
export const SESSION_COOKIE = 'dnsphpadmin';

const DISABLED = 'API subsystem is disabled, change $g_api_enabled to true in your config.php file to enable this\n';

/** Errors raised before an action runs (a body over the limit, a malformed URL), in the tool's body shape. */
export const dnsToolErrorShape: ErrorShape = (status, message) =>
  body({ error: statusText(status), message, code: -1 });

/** PHP's `json_encode(..., JSON_PRETTY_PRINT)` and the newline the original wrote after it. */
function body(value: PhpJson): string {
  return `${phpPrettyJson(value)}\n`;
}

type Data = Record<string, unknown>;

/** A failure of an action, answered as the original does: HTTP 400, `{"error", "message", "code"}`. */
function errorBody(err: ToolErrorBody): PhpJson {
  const fields = { error: err.error, message: err.message, code: err.code };
  return err.loginFailure ? { result: 'failure', ...fields } : fields;
}

function toolErrorOf(errors: readonly GraphQLFormattedError[]): ToolError {
  const tool = errors[0]?.extensions?.tool as ToolErrorBody | undefined;
  if (tool) return new ToolError(tool.error, tool.message, tool.code, tool.loginFailure);
  const code = errors[0]?.extensions?.code;
  // The graph refused the request itself (a subgraph away, a limit): still the tool's shape, saying what happened.
  if (code === 'SUBGRAPH_UNAVAILABLE' || code === 'SUBGRAPH_TIMEOUT')
    return toolErrors.dns(errors[0]?.message ?? 'the DNS tool is not available');
  throw new Error(`dns-tool operation failed: ${errors[0]?.message ?? 'no error message'}`);
}

/**
 * The session id in the `dnsphpadmin` cookie of a request (RFC 6265 cookie-string), if sent. The cookie only ever
 * carries our session ids: another value (a PHP session id the original tool left in the browser) is no credential,
 * not a wrong API token that would fail every request with `Login failed`.
 */
function sessionCookie(header: string | undefined): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = pair.slice(eq + 1).trim();
      return isSessionId(value) ? value : undefined;
    }
  }
  return undefined;
}

/** Where the credential of a request came from: only the cookie is sent by a browser on its own. */
type CredentialSource = 'posted token' | 'authorization' | 'cookie' | 'none';

/** The request's credential: a posted token first (as the original), then Authorization: Bearer, then the cookie. */
function credentialOf(
  req: FastifyRequest,
  tool: ToolRequest,
  spec: ActionSpec,
): { credential?: string; source: CredentialSource } {
  const posted = spec.name === 'login_token' ? undefined : tool.optional('token') || undefined;
  if (posted) return { credential: posted, source: 'posted token' };
  const bearer = bearerCredential(req.headers.authorization);
  if (bearer) return { credential: bearer, source: 'authorization' };
  const cookie = sessionCookie(req.headers.cookie);
  return cookie ? { credential: cookie, source: 'cookie' } : { source: 'none' };
}

const LOGINS: ReadonlySet<string> = new Set(['login', 'login_token']);

/**
 * The one check against cross-site request forgery (issue #23). A browser sends the session cookie by itself, so a
 * request carried by the cookie alone must come from the tool's own origin (or from no browser at all: scripts send
 * neither Origin nor Sec-Fetch-Site), and a change must be a POST (a link is a GET, and a link on a same-site page,
 * another port of the host, carries even a SameSite=Strict cookie). A login from another origin would plant the
 * sender's session in the victim's browser: refused too.
 */
function refuseCrossSite(
  req: FastifyRequest,
  spec: ActionSpec,
  source: CredentialSource,
  scheme: 'http' | 'https',
): void {
  const origin = requestOrigin(req.headers, scheme);
  if (LOGINS.has(spec.name) && origin === 'foreign') throw toolErrors.crossSiteLogin();
  if (source !== 'cookie') return;
  if (spec.changes && req.method !== 'POST') throw toolErrors.cookieOverGet();
  if (origin === 'foreign') throw toolErrors.crossSite();
}

function isTls(req: FastifyRequest): boolean {
  return 'encrypted' in req.socket && req.socket.encrypted === true;
}

/** Strict: never sent on a request another site starts; Secure only over HTTPS (an http client would lose it). */
function cookieAttributes(scheme: 'http' | 'https'): string {
  return `Path=/; HttpOnly; SameSite=Strict${scheme === 'https' ? '; Secure' : ''}`;
}

/** A form body as PHP's $_POST: each name once, the last value winning. */
function formParams(text: string): Params {
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) out[name] = value;
  return out;
}

function hasNewline(params: Params): boolean {
  return Object.values(params).some((v) =>
    typeof v === 'string' ? /[\r\n]/.test(v) : v?.some((x) => /[\r\n]/.test(x)),
  );
}

/** Parameters whose absence the action reports itself, with the original's own message. */
const OWN_MISSING_CHECK: ReadonlySet<string> = new Set(['login', 'login_token', 'list_records']);

/**
 * The DNS record tool's `/api.php` (seeds/001, reference/dns-tool.md): the action from the query string or the form
 * body, bodies as PHP's pretty-printed JSON, every error a 400 with the original's strings. Each action is a fixed
 * GraphQL operation through the gateway, carrying the caller's session id, token or DNS API token as Bearer.
 */
export function dnsToolRestInterface(graph: Graph, options: { apiEnabled: boolean }): RestInterface {
  async function run(
    req: FastifyRequest,
    caller: RequestCaller,
    op: PreparedOperation,
    variables: Data = {},
  ): Promise<Data> {
    const { result } = await graph.run(op, variables, req.id, caller);
    if (result.errors?.length) throw toolErrorOf(result.errors);
    return result.data ?? {};
  }

  /** Checks in the original's order for a request that fails before its operation: login first, then parameters. */
  async function preflight(req: FastifyRequest, caller: RequestCaller, tool: ToolRequest, spec: ActionSpec) {
    const missing = OWN_MISSING_CHECK.has(spec.name)
      ? undefined
      : spec.required.find((p) => (tool.optional(p.name) ?? '') === '');
    const badTtl =
      ['create_record', 'replace_record'].includes(spec.name) && !missing && !validTtl(tool.optional('ttl'));
    // A posted token is checked on every action (a bad one is `Login failed`), a session only where it matters.
    const check = (spec.requiresLogin && (missing || badTtl)) || (!spec.requiresLogin && caller.authorization);
    if (check) {
      const data = await run(req, caller, Ops.session);
      const session = data.toolSession as { loggedIn: boolean };
      if (spec.requiresLogin && !session.loggedIn) throw toolErrors.notAuthenticated();
    }
    if (missing) throw toolErrors.missing(missing.name);
    if (badTtl) {
      editableType(tool.required('type'));
      throw toolErrors.invalidTtl();
    }
  }

  async function act(req: FastifyRequest, reply: FastifyReply, tool: ToolRequest, spec: ActionSpec): Promise<PhpJson> {
    const { credential, source } = credentialOf(req, tool, spec);
    const scheme = requestScheme(isTls(req), req.headers['x-forwarded-proto']);
    refuseCrossSite(req, spec, source, scheme);
    const caller: RequestCaller = {
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      address: req.ip,
      stop: callerOf(req).stop, // the client going away stops what its request started (a zone transfer)
    };
    await preflight(req, caller, tool, spec);
    const withWarnings = (value: Record<string, PhpJson>, warnings: readonly string[]): PhpJson =>
      warnings.length > 0 ? { ...value, warnings: [...warnings] } : value;
    const change = () => ({
      record: tool.required('record'),
      type: tool.required('type'),
      ptr: ptrWanted(tool.optional('ptr')),
      ...optional('zone', tool.optional('zone')),
      ...optional('comment', tool.optional('comment')),
    });
    switch (spec.name) {
      case 'is_logged': {
        const s = (await run(req, caller, Ops.session)).toolSession as {
          loggedIn: boolean;
          user: string | null;
          roles: string | null;
        };
        return {
          is_logged: s.loggedIn,
          ...(s.user !== null ? { user: s.user } : {}),
          ...(s.roles !== null ? { role: s.roles } : {}),
        };
      }
      case 'login':
      case 'login_token': {
        const result =
          spec.name === 'login'
            ? ((
                await run(req, caller, Ops.login, {
                  u: tool.optional('loginUsername') ?? null,
                  p: tool.optional('loginPassword') ?? null,
                })
              ).toolLogin as { sessionId: string; warnings: string[] })
            : ((await run(req, caller, Ops.loginToken, { t: tool.optional('token') ?? null })).toolLoginToken as {
                sessionId: string;
                warnings: string[];
              });
        void reply.header('set-cookie', `${SESSION_COOKIE}=${result.sessionId}; ${cookieAttributes(scheme)}`);
        return withWarnings({ result: 'success', session_id: result.sessionId }, result.warnings);
      }
      case 'logout': {
        const r = (await run(req, caller, Ops.logout)).toolLogout as { warnings: string[] };
        void reply.header('set-cookie', `${SESSION_COOKIE}=; ${cookieAttributes(scheme)}; Max-Age=0`);
        return withWarnings({ result: 'success' }, r.warnings);
      }
      case 'list_zones': {
        const zones = (await run(req, caller, Ops.zones)).toolZones as ZoneData[];
        return zones.length === 0 ? [] : Object.fromEntries(zones.map((z) => [z.name, zoneListing(z)]));
      }
      case 'list_records': {
        const zone = tool.optional('zone');
        const rows = (await run(req, caller, Ops.records, { z: zone === '' ? null : (zone ?? null) })).toolRecords;
        return (rows as RowData[]).map(row);
      }
      case 'get_record': {
        const rows = (
          await run(req, caller, Ops.record, {
            r: tool.required('record'),
            t: tool.optional('type') || 'A',
            z: tool.optional('zone') || null,
          })
        ).toolRecord;
        return (rows as RowData[]).map(row);
      }
      case 'get_zone_for_fqdn':
        return {
          zone: (await run(req, caller, Ops.zoneForFqdn, { f: tool.required('fqdn') })).toolZoneForFqdn as string,
        };
      case 'get_version':
        return { version: (await run(req, caller, Ops.version)).toolVersion as string };
      case 'create_record': {
        const input = { ...change(), ttl: ttlOf(tool.required('ttl')), value: tool.required('value') };
        const r = (await run(req, caller, Ops.create, { in: input })).toolCreateRecord as { warnings: string[] };
        return withWarnings({ result: 'success' }, r.warnings);
      }
      case 'delete_record': {
        const input = { ...change(), ...optional('value', tool.optional('value')) };
        const r = (await run(req, caller, Ops.delete, { in: input })).toolDeleteRecord as { warnings: string[] };
        return withWarnings({ result: 'success' }, r.warnings);
      }
      case 'replace_record': {
        const input = {
          ...change(),
          ttl: ttlOf(tool.required('ttl')),
          newValue: tool.required('new_value'),
          ...optional('value', tool.optional('value')),
          ...optional('newRecord', tool.optional('new_record')),
          ...optional('newType', tool.optional('new_type')),
        };
        const r = (await run(req, caller, Ops.replace, { in: input })).toolReplaceRecord as { warnings: string[] };
        return withWarnings({ result: 'success' }, r.warnings);
      }
      default:
        throw toolErrors.unknownAction();
    }
  }

  async function handle(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (!options.apiEnabled) return reply.status(200).type('text/html; charset=UTF-8').send(DISABLED);
    const query = req.query as Params;
    const form = (req.body ?? {}) as Params;
    try {
      const tool = new ToolRequest(req.method, query, form);
      if (tool.action === undefined) return reply.status(200).type('text/html; charset=UTF-8').send(helpPage());
      const spec = actionSpec(tool.action);
      if (!spec) throw toolErrors.unknownAction();
      if (hasNewline(query) || hasNewline(form)) throw toolErrors.newline();
      if (spec.postOnly && !tool.isPost) throw toolErrors.postOnly();
      const result = await act(req, reply, tool, spec);
      return reply.status(200).type('application/json').send(body(result));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      // Every failure is a 400 (POST only and Not authenticated say 403 in the body's code, not the status).
      return reply
        .status(400)
        .type('application/json')
        .send(body(errorBody(err)));
    }
  }

  return {
    name: 'dns-tool',
    prefix: '/api.php',
    shape: dnsToolErrorShape,
    // The original answers every failure with 400 (the body's code says more), a body over the limit included.
    errorStatus: () => 400,
    routes(app: FastifyInstance) {
      // PHP reads form bodies into $_POST and ignores every other kind (JSON bodies are not read).
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, text, done) =>
        done(null, formParams(String(text))),
      );
      app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _raw, done) => done(null, {}));
      // PHP runs the script for any method; only POST counts as POST (login must be POSTed).
      app.route({ method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'], url: '', handler: handle });
    },
  };
}

interface ZoneData {
  name: string;
  updateServer: string | null;
  transferServer: string | null;
  inTransfer: boolean | null;
  note: string | null;
  maintenanceNote: string | null;
  readOnly: boolean | null;
}

/** list_zones' item: keys in the original's order, those not configured left out. */
function zoneListing(z: ZoneData): Record<string, PhpJson> {
  const item: Record<string, PhpJson> = { domain: z.name };
  if (z.updateServer !== null) item.update_server = z.updateServer;
  if (z.transferServer !== null) item.transfer_server = z.transferServer;
  if (z.inTransfer !== null) item.in_transfer = z.inTransfer;
  if (z.note !== null) item.note = z.note;
  if (z.maintenanceNote !== null) item.maintenance_note = z.maintenanceNote;
  if (z.readOnly !== null) item.read_only = z.readOnly;
  return item;
}

interface RowData {
  name: string;
  ttl: number;
  class: string;
  type: string;
  value: string;
}

const row = (r: RowData): PhpJson => [r.name, String(r.ttl), r.class, r.type, r.value];

function validTtl(text: string | undefined): boolean {
  try {
    ttlOf(text ?? '');
    return true;
  } catch {
    return false;
  }
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return value === undefined || value === '' ? {} : ({ [key]: value } as { [P in K]?: string });
}
