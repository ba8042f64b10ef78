import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError } from 'graphql';
import { ERROR_CODES, isErrorCode, statusOfCode, type ErrorShape } from '../../../platform/errors';
import {
  actionSpec,
  bearerCredential,
  editableType,
  helpPage,
  isSessionId,
  SESSION_COOKIE,
  toolErrorBody,
  toolErrorBodyOf,
  toolErrorFields,
  ToolError,
  toolErrors,
  ToolRequest,
  ttlOf,
  type ActionSpec,
  type Params,
  type ToolErrorBody,
} from '../../../subgraphs/dns-tool/protocol';
import { callerOf, type Graph, type PreparedOperation, type RequestCaller } from '../../graph';
import { statusText } from '../errors';
import { requestOrigin, requestScheme } from './cross-site';
import type { RestInterface } from '../interface';
import { DnsToolOps as Ops } from './operations';
import { phpPrettyJson, type PhpJson } from './php-json';
import { DNS_TOOL_ACTIONS } from './routes';

const DISABLED = 'API subsystem is disabled, change $g_api_enabled to true in your config.php file to enable this\n';

/** Errors raised before an action runs (a body over the limit, a malformed URL), in the tool's body shape. */
export const dnsToolErrorShape: ErrorShape = (status, message) =>
  body({ error: statusText(status), message, code: -1 });

/** PHP's `json_encode(..., JSON_PRETTY_PRINT)` and the newline the original wrote after it. */
function body(value: PhpJson): string {
  return `${phpPrettyJson(value)}\n`;
}

type Data = Record<string, unknown>;

/**
 * A failed operation as the tool's failure: the body the subgraph put in `extensions.tool`, as it came. The graph's
 * own refusals (a subgraph away or late) are the tool's `ERROR:` shape; any other code is a bug (an internal error).
 */
class ToolFailure extends Error {
  constructor(readonly body: ToolErrorBody) {
    super(body.message);
  }
}

function toolFailureOf(errors: readonly GraphQLFormattedError[]): ToolFailure {
  const [first] = errors;
  const tool = toolErrorBodyOf(first?.extensions);
  if (tool) return new ToolFailure(tool);
  const code = first?.extensions?.code;
  // Only the gateway's own refusals come without the tool's body (the subgraph sends one with each of its errors).
  if (isErrorCode(code) && ERROR_CODES[code].raisedBy === 'gateway' && statusOfCode(code, 'dnsTool') !== undefined)
    return new ToolFailure(toolErrorBody(toolErrors.dns(first?.message ?? 'the DNS tool is not available')));
  throw new Error(`dns-tool operation failed: ${first?.message ?? 'no error message'}`);
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
 * The one check against cross-site request forgery (docs/dns-tool.md, "Requests from other origins"). A browser
 * sends the session cookie by itself, so a request carried by the cookie alone must come from the tool's own origin
 * (or from no browser at all: scripts send neither Origin nor Sec-Fetch-Site), and a change must be a POST (a link is
 * a GET, and a link on a same-site page, another port of the host, carries even a SameSite=Strict cookie). A login
 * from another origin would plant the sender's session in the victim's browser: refused too.
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
 * The DNS record tool's `/api.php` (docs/dns-tool.md, "Transport"): the action from the query string or the form
 * body, bodies as PHP's pretty-printed JSON, every error a 400 with the original's strings. Each action is a fixed
 * GraphQL operation through the gateway, carrying the caller's session id, token or DNS API token as Bearer.
 */
export function dnsToolRestInterface(graph: Graph, options: { apiEnabled: boolean }): RestInterface {
  async function run(
    req: FastifyRequest,
    caller: RequestCaller,
    operation: PreparedOperation,
    variables: Data = {},
  ): Promise<Data> {
    const { result } = await graph.run(operation, variables, req.id, caller);
    if (result.errors?.length) throw toolFailureOf(result.errors);
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
    const { stop, traceHeaders } = callerOf(req);
    const caller: RequestCaller = {
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      address: req.ip,
      stop, // the client going away stops what its request started (a zone transfer)
      traceHeaders,
    };
    await preflight(req, caller, tool, spec);
    const route = DNS_TOOL_ACTIONS[spec.name];
    if (!route) throw toolErrors.unknownAction();
    const data = await run(req, caller, route.operation, route.variables(tool));
    return route.render(data, { reply, scheme });
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
      const failure = err instanceof ToolFailure ? err.body : err instanceof ToolError ? toolErrorBody(err) : undefined;
      if (!failure) throw err;
      // Every failure is a 400 (POST only and Not authenticated say 403 in the body's code, not the status).
      return reply
        .status(400)
        .type('application/json')
        .send(body(toolErrorFields(failure)));
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

function validTtl(text: string | undefined): boolean {
  try {
    ttlOf(text ?? '');
    return true;
  } catch {
    return false;
  }
}
