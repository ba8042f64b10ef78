import type { FastifyReply } from 'fastify';
import { ptrWanted, SESSION_COOKIE, ttlOf, type ToolRequest } from '../../../subgraphs/dns-tool/protocol';
import type { PreparedOperation } from '../../graph';
import { DnsToolOps as Ops } from './operations';
import type { PhpJson } from './php-json';

type Data = Record<string, unknown>;

/** What an action's answer may need besides the operation's data: the reply (cookies) and the request's scheme. */
export interface ActionContext {
  reply: FastifyReply;
  scheme: 'http' | 'https';
}

/**
 * One action of `/api.php` (the protocol's ActionSpec says its parameters and rules): the fixed GraphQL operation it
 * runs, its variables from the request's parameters, and how the data is rendered as the original's body.
 */
export interface ActionRoute {
  readonly operation: PreparedOperation;
  variables(tool: ToolRequest): Data;
  render(data: Data, context: ActionContext): PhpJson;
}

/** Every answer of /api.php: 200 with the body, or 400 with `{"error", "message", "code"}` (the body's code says more). */
export const DNS_TOOL_STATUSES = [200, 400] as const;

/** Strict: never sent on a request another site starts; Secure only over HTTPS (an http client would lose it). */
function cookieAttributes(scheme: 'http' | 'https'): string {
  return `Path=/; HttpOnly; SameSite=Strict${scheme === 'https' ? '; Secure' : ''}`;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return value === undefined || value === '' ? {} : ({ [key]: value } as { [P in K]?: string });
}

const withWarnings = (value: Record<string, PhpJson>, warnings: readonly string[]): PhpJson =>
  warnings.length > 0 ? { ...value, warnings: [...warnings] } : value;

const success = (result: unknown): PhpJson =>
  withWarnings({ result: 'success' }, (result as { warnings: string[] }).warnings);

/** The parameters every change takes. */
const change = (tool: ToolRequest) => ({
  record: tool.required('record'),
  type: tool.required('type'),
  ptr: ptrWanted(tool.optional('ptr')),
  ...optional('zone', tool.optional('zone')),
  ...optional('comment', tool.optional('comment')),
});

function login(result: unknown, { reply, scheme }: ActionContext): PhpJson {
  const { sessionId, warnings } = result as { sessionId: string; warnings: string[] };
  void reply.header('set-cookie', `${SESSION_COOKIE}=${sessionId}; ${cookieAttributes(scheme)}`);
  return withWarnings({ result: 'success', session_id: sessionId }, warnings);
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

const rows = (list: unknown): PhpJson =>
  (list as RowData[]).map((r) => [r.name, String(r.ttl), r.class, r.type, r.value]);

const none = (): Data => ({});

/** The route table of `/api.php`: one entry per action, in the order of the help page. */
export const DNS_TOOL_ACTIONS: Readonly<Record<string, ActionRoute>> = {
  is_logged: {
    operation: Ops.session,
    variables: none,
    render(data) {
      const s = data.toolSession as { loggedIn: boolean; user: string | null; roles: string | null };
      return {
        is_logged: s.loggedIn,
        ...(s.user !== null ? { user: s.user } : {}),
        ...(s.roles !== null ? { role: s.roles } : {}),
      };
    },
  },
  login: {
    operation: Ops.login,
    variables: (tool) => ({
      username: tool.optional('loginUsername') ?? null,
      password: tool.optional('loginPassword') ?? null,
    }),
    render: (data, context) => login(data.toolLogin, context),
  },
  logout: {
    operation: Ops.logout,
    variables: none,
    render(data, { reply, scheme }) {
      void reply.header('set-cookie', `${SESSION_COOKIE}=; ${cookieAttributes(scheme)}; Max-Age=0`);
      return success(data.toolLogout);
    },
  },
  login_token: {
    operation: Ops.loginToken,
    variables: (tool) => ({ token: tool.optional('token') ?? null }),
    render: (data, context) => login(data.toolLoginToken, context),
  },
  list_zones: {
    operation: Ops.zones,
    variables: none,
    render(data) {
      const zones = data.toolZones as ZoneData[];
      return zones.length === 0 ? [] : Object.fromEntries(zones.map((z) => [z.name, zoneListing(z)]));
    },
  },
  list_records: {
    operation: Ops.records,
    variables(tool) {
      const zone = tool.optional('zone');
      return { zone: zone === '' ? null : (zone ?? null) };
    },
    render: (data) => rows(data.toolRecords),
  },
  create_record: {
    operation: Ops.create,
    // The graph takes the TTL as an Int: the text is read (and refused) by the protocol's one TTL rule.
    variables: (tool) => ({
      input: { ...change(tool), ttl: ttlOf(tool.required('ttl')), value: tool.required('value') },
    }),
    render: (data) => success(data.toolCreateRecord),
  },
  delete_record: {
    operation: Ops.delete,
    variables: (tool) => ({ input: { ...change(tool), ...optional('value', tool.optional('value')) } }),
    render: (data) => success(data.toolDeleteRecord),
  },
  replace_record: {
    operation: Ops.replace,
    variables: (tool) => ({
      input: {
        ...change(tool),
        ttl: ttlOf(tool.required('ttl')),
        newValue: tool.required('new_value'),
        ...optional('value', tool.optional('value')),
        ...optional('newRecord', tool.optional('new_record')),
        ...optional('newType', tool.optional('new_type')),
      },
    }),
    render: (data) => success(data.toolReplaceRecord),
  },
  get_zone_for_fqdn: {
    operation: Ops.zoneForFqdn,
    variables: (tool) => ({ fqdn: tool.required('fqdn') }),
    render: (data) => ({ zone: data.toolZoneForFqdn as string }),
  },
  get_record: {
    operation: Ops.record,
    variables: (tool) => ({
      record: tool.required('record'),
      type: tool.optional('type') || 'A',
      zone: tool.optional('zone') || null,
    }),
    render: (data) => rows(data.toolRecord),
  },
  get_version: {
    operation: Ops.version,
    variables: none,
    render: (data) => ({ version: data.toolVersion as string }),
  },
};
