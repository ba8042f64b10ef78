import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError } from 'graphql';
import { callerOf, type Graph, type PreparedOperation, type RequestCaller } from '../../graph';
import { Admission, AdmissionFullError } from '../../../platform/async';
import { statusOfCode, type ErrorShape } from '../../../platform/errors';
import { RestError } from '../errors';
import { prefersAsync } from '../prefer';
import type { RestInterface } from '../interface';
import {
  BatchBody,
  CreateRecordBody,
  CreateSecondaryZoneBody,
  CreateUserBody,
  CreateZoneBody,
  DnssecBody,
  LoginBody,
  parseBody,
  PasswordBody,
  RotateBody,
  EmptyBody,
  DsSeenBody,
  UpdateRecordBody,
  UpdateUserBody,
  UpdateZoneBody,
} from './bodies';
import { registerJsonBodyParser } from './json-body';
import { accepted, LongOps, renderOperation, type GqlOperation } from './long-operations';
import { ListingCache } from './listing-cache';
import { SharedPages } from './shared-pages';
import { wholeFile, wholeListing, type FilePage, type ListingPage, type WholeRead } from './whole-listing';
import { OPENAPI } from './openapi';
import { DnsApiOps as Ops, RECORDS_PAGE_MAX } from './operations';
import { DNS_API_ROUTES } from './routes';
import {
  dnssecRollover,
  dnssecStatus,
  record,
  recordCreated,
  recordSummary,
  recordUpdated,
  signingKey,
  signingKeyRotation,
  snakeCase,
  secondaryZone,
  user,
  userCreated,
  zoneDetails,
  zoneSummary,
  zoneUpdated,
  type GqlDnssecRollover,
  type GqlDnssecStatus,
  type GqlRecord,
  type GqlRecordSummary,
  type GqlSecondaryZone,
  type GqlSigningKey,
  type GqlUser,
  type GqlZone,
} from './render';

export { SharedPages } from './shared-pages';

/** The DNS API's error bodies: `{"error": "<one sentence>", "errors"?: [{field, message}]}` (docs/dns-api.md). */
export const dnsApiErrorShape: ErrorShape = (_status, message, extras) => ({
  error: message,
  ...(extras?.errors?.length ? { errors: extras.errors.map((e) => ({ field: e.field, message: e.message })) } : {}),
});

/** The first error of an operation as this interface's error (its status, body extras and headers). */
function restErrorOf(errors: readonly GraphQLFormattedError[], sentCredential: boolean): RestError {
  const [first] = errors;
  if (!first) return new RestError(500, 'internal error');
  const ext = first.extensions ?? {};
  const status = statusOfCode(ext.code, 'dnsApi') ?? 500;
  if (status === 500) return new RestError(500, 'internal error');
  // The graph names fields in camelCase; this interface as the seed does. (Errors of the adapter's own body checks
  // already name the fields as the client sent them: `unknown field "keySize"` stays what it was.)
  const fieldErrors = Array.isArray(ext.errors)
    ? (ext.errors as Array<{ field: string; message: string }>).map((e) => ({
        field: snakeCase(e.field),
        message: snakeCase(e.message),
      }))
    : undefined;
  const headers: Record<string, string> = {};
  // RFC 6750 §3.1: a request without credentials gets no error code, a refused token gets invalid_token.
  if (status === 401)
    headers['www-authenticate'] = sentCredential
      ? 'Bearer realm="dns-api", error="invalid_token"'
      : 'Bearer realm="dns-api"';
  if ((status === 429 || status === 503) && typeof ext.retryAfter === 'number')
    headers['retry-after'] = String(ext.retryAfter);
  return new RestError(status, snakeCase(first.message), fieldErrors ? { errors: fieldErrors } : undefined, headers);
}

type Data = Record<string, unknown>;

/** One route's handler; the path parameters of every route are among these. */
type Handler = (
  req: FastifyRequest<{ Params: ZoneParams & RecordParams & UserParams & OperationParams & SecondaryZoneParams }>,
  reply: FastifyReply,
) => Promise<FastifyReply>;

/** The path's zone (decoded by Fastify) as the operations take it. */
type ZoneParams = { zone: string };
type RecordParams = { zone: string; id: string };
type UserParams = { id: string };
type SecondaryZoneParams = { name: string };
type OperationParams = { id: string };

/** A query parameter given at most once (a second one is a malformed query). */
function queryParam(req: FastifyRequest, name: string): string | undefined {
  const value = (req.query as Record<string, string | string[] | undefined>)[name];
  if (Array.isArray(value)) throw new RestError(400, `${name} may be given only once`);
  return value;
}

function ifMatch(req: FastifyRequest): string | null {
  const header = req.headers['if-match'];
  return typeof header === 'string' ? header : null;
}

/** Seconds a whole-zone read refused for being one too many is told to wait (Retry-After). */
const WHOLE_ZONE_RETRY_AFTER_S = 2;

/** What the DNS API's REST interface may be given instead of making its own. */
export interface DnsApiRestOptions {
  /** Rendered listings by zone version. */
  listings?: ListingCache;
  /**
   * The cap on whole-zone reads (listings without `limit`, exports): one per process, shared by both listeners of
   * the DNS API and the dns-api subgraph's `zoneFile` (DNS_API_WHOLE_ZONE_READS, DNS_API_WHOLE_ZONE_QUEUE).
   */
  wholeZoneReads?: Admission;
  /** Pages of whole-zone reads shared by the walks of one zone version (one per process, like the cap). */
  sharedPages?: SharedPages;
}

/**
 * The DNS server API at `/api/v1` (docs/dns-api.md): JSON in, JSON out, snake_case fields, each
 * path a fixed GraphQL operation through the gateway with the caller's Bearer token passed on.
 */
export function dnsApiRestInterface(graph: Graph, options: DnsApiRestOptions = {}): RestInterface {
  const listings = options.listings ?? new ListingCache();
  const wholeZoneReads = options.wholeZoneReads ?? new Admission({ running: 4, waiting: 32 });
  const sharedPages = options.sharedPages ?? new SharedPages();

  async function run(
    req: FastifyRequest,
    op: PreparedOperation,
    variables: Data,
    caller: RequestCaller = callerOf(req),
  ): Promise<Data> {
    const { result } = await graph.run(op, variables, req.id, caller);
    if (result.errors?.length) throw restErrorOf(result.errors, Boolean(req.headers.authorization?.trim()));
    return result.data ?? {};
  }

  /** The zone of the path; NOT_FOUND when the graph says there is none. */
  async function zoneOf<T>(
    req: FastifyRequest<{ Params: ZoneParams }>,
    op: PreparedOperation,
    variables: Data,
    caller?: RequestCaller,
  ): Promise<T> {
    const data = await run(req, op, { zone: req.params.zone, ...variables }, caller);
    const zone = data.zone as T | null;
    if (!zone) throw new RestError(404, `no zone ${JSON.stringify(req.params.zone)}`);
    return zone;
  }

  const json = (reply: FastifyReply, status: number, body: unknown): FastifyReply =>
    reply.status(status).type('application/json; charset=utf-8').send(body);

  /**
   * A whole-zone read, once one of the process's slots for them is free: 503 with Retry-After beyond the slots and
   * their queue; a client that goes away while it waits leaves the queue. The slot is given back when the answer
   * ends, however it ends (a stream: when its response closes).
   */
  async function wholeZoneRead(
    req: FastifyRequest,
    reply: FastifyReply,
    type: string,
    read: () => Promise<WholeRead>,
    onBody?: (body: string, etag: string | null) => void,
  ): Promise<FastifyReply> {
    let release: () => void;
    try {
      release = await wholeZoneReads.enter(callerOf(req).stop?.signal);
    } catch (err) {
      if (!(err instanceof AdmissionFullError)) throw err;
      throw new RestError(
        503,
        `too many whole-zone reads at once (${err.running} running, ${err.waiting} waiting): try again in ` +
          `${WHOLE_ZONE_RETRY_AFTER_S} seconds, or read the records a page at a time with limit`,
        undefined,
        { 'retry-after': String(WHOLE_ZONE_RETRY_AFTER_S) },
      );
    }
    reply.raw.once('close', release);
    try {
      const whole = await read();
      if ('body' in whole) {
        onBody?.(whole.body, whole.etag);
        return reply.status(200).type(type).send(whole.body);
      }
      // A HEAD answer has no body: the walk is not made.
      if (req.method === 'HEAD') {
        whole.stream.destroy();
        return reply.status(200).type(type).send();
      }
      return reply.status(200).type(type).send(whole.stream);
    } catch (err) {
      release();
      throw err;
    }
  }

  /** The caller without its stop: a page shared by several walks is read whole even if its own client went away. */
  const sharing = (req: FastifyRequest): RequestCaller => {
    const { stop: _stop, ...caller } = callerOf(req);
    return caller;
  };

  return {
    name: 'dns-api',
    prefix: '/api/v1',
    shape: dnsApiErrorShape,
    routes(app: FastifyInstance) {
      registerJsonBodyParser(app);
      const handlers: Record<string, Handler> = {
        getOpenApi: async (_req, reply) => json(reply, 200, OPENAPI),

        getJwks: async (req, reply) => {
          const data = await run(req, Ops.jwks, {});
          return json(reply, 200, data.dnsApiJwks);
        },

        listSigningKeys: async (req, reply) => {
          const data = await run(req, Ops.signingKeys, {});
          return json(reply, 200, { keys: (data.dnsApiSigningKeys as GqlSigningKey[]).map(signingKey) });
        },

        rotateSigningKey: async (req, reply) => {
          if (req.body !== undefined) parseBody(EmptyBody, req.body);
          const data = await run(req, Ops.rotateSigningKey, {});
          const rotation = data.rotateDnsApiSigningKey as { key: GqlSigningKey; previous: GqlSigningKey | null };
          return json(reply, 200, signingKeyRotation(rotation));
        },

        login: async (req, reply) => {
          const body = parseBody(LoginBody, req.body);
          const data = await run(req, Ops.login, { username: body.username, password: body.password });
          const login = data.login as { token: string; expiresAt: string };
          return json(reply, 200, { token: login.token, expires_at: login.expiresAt });
        },

        // Zones
        listZones: async (req, reply) => {
          const data = await run(req, Ops.zones, {});
          return json(reply, 200, { zones: (data.zones as GqlZone[]).map(zoneSummary) });
        },

        createZone: async (req, reply) => {
          const body = parseBody(CreateZoneBody, req.body);
          const input = {
            name: body.name,
            adminEmail: body.admin_email,
            refresh: body.refresh,
            retry: body.retry,
            expire: body.expire,
            minimum: body.minimum,
            defaultTtl: body.default_ttl,
            zoneFile: body.zone_file,
          };
          if (prefersAsync(req.headers.prefer))
            return accepted(
              reply,
              (await run(req, LongOps.startCreateZone, { input })).startCreateZone as GqlOperation,
            );
          const data = await run(req, Ops.createZone, { input });
          const zone = data.createZone as GqlZone;
          void reply.header('location', `/api/v1/zones/${zone.name}`).header('etag', zone.etag);
          return json(reply, 201, zoneSummary(zone));
        },

        getZone: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const zone = await zoneOf<GqlZone>(req, Ops.zone, {});
          return json(reply.header('etag', zone.etag), 200, zoneDetails(zone));
        },

        updateZone: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const body = parseBody(UpdateZoneBody, req.body);
          const data = await run(req, Ops.updateZone, {
            zone: req.params.zone,
            ifMatch: ifMatch(req),
            input: {
              adminEmail: body.admin_email,
              refresh: body.refresh,
              retry: body.retry,
              expire: body.expire,
              minimum: body.minimum,
              defaultTtl: body.default_ttl,
            },
          });
          const zone = data.updateZone as GqlZone;
          return json(reply.header('etag', zone.etag), 200, zoneUpdated(zone, Object.keys(body)));
        },

        deleteZone: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const data = await run(req, Ops.deleteZone, { zone: req.params.zone, ifMatch: ifMatch(req) });
          return json(reply, 200, data.deleteZone);
        },

        exportZone: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          // The caller's right to read the zone is checked here (and 404 for no zone), before any page is shared.
          const { name, etag } = await zoneOf<{ name: string; etag: string }>(req, Ops.zoneVersion, {});
          return wholeZoneRead(req, reply, 'text/dns; charset=utf-8', () =>
            wholeFile({
              zone: name,
              version: etag,
              shared: sharedPages,
              read: async (cursor) => {
                const zone = await zoneOf<{ zoneFilePage: FilePage }>(req, Ops.exportPage, { cursor }, sharing(req));
                return zone.zoneFilePage;
              },
            }),
          );
        },

        // Records
        listRecords: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const limitText = queryParam(req, 'limit');
          if (limitText !== undefined && !/^\d{1,9}$/.test(limitText))
            throw new RestError(400, `limit must be a whole number (got ${JSON.stringify(limitText.slice(0, 40))})`);
          const limit = limitText === undefined ? undefined : Number(limitText);
          if (limit !== undefined && (limit < 1 || limit > RECORDS_PAGE_MAX))
            throw new RestError(400, `limit must be an integer from 1 to ${RECORDS_PAGE_MAX} (got ${limit})`);
          const type = queryParam(req, 'type');
          const cursor = queryParam(req, 'cursor');
          // The caller's right to read the zone is checked here (and 404 for no zone), before the cache is asked.
          const { etag } = await zoneOf<{ etag: string }>(req, Ops.zoneVersion, {});
          const page = { type, limit: limitText, cursor };
          const cached = listings.get(ListingCache.key(etag, page));
          if (cached !== undefined) return json(reply, 200, cached);
          if (limit === undefined) {
            // The whole zone, as the seed has it: walked page by page, each page the graph's largest.
            return wholeZoneRead(
              req,
              reply,
              'application/json; charset=utf-8',
              () =>
                wholeListing({
                  version: etag,
                  type,
                  start: cursor ?? null,
                  shared: sharedPages,
                  read: async (after) => {
                    const zone = await zoneOf<{ etag: string; records: Omit<ListingPage, 'etag'> }>(
                      req,
                      Ops.recordPage,
                      { type: type ?? null, cursor: after },
                      sharing(req),
                    );
                    return { etag: zone.etag, ...zone.records };
                  },
                }),
              // One page: kept under the version it shows, which it was read with.
              (body, version) => {
                if (version !== null) listings.set(ListingCache.key(version, page), body);
              },
            );
          }
          const zone = await zoneOf<{
            records: { zone: string; nextCursor: string | null; records: GqlRecordSummary[] };
          }>(req, Ops.records, { type: type ?? null, limit, cursor: cursor ?? null });
          const body = JSON.stringify({
            zone: zone.records.zone,
            records: zone.records.records.map(recordSummary),
            next_cursor: zone.records.nextCursor,
          });
          // Read after the version: never older than the ETag it is kept under.
          listings.set(ListingCache.key(etag, page), body);
          return json(reply, 200, body);
        },

        createRecord: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const body = parseBody(CreateRecordBody, req.body);
          const data = await run(req, Ops.createRecord, { zone: req.params.zone, input: body });
          const created = data.createRecord as GqlRecord;
          void reply.header('etag', created.etag);
          return json(reply, 201, recordCreated(created));
        },

        batchRecords: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const body = parseBody(BatchBody, req.body);
          const data = await run(req, Ops.batch, {
            zone: req.params.zone,
            operations: body.operations.map((op) => ({ ...op, operation: op.operation.toUpperCase() })),
          });
          const result = data.batchRecords as {
            success: boolean;
            results: Array<{ operation: string; id: string; status: string }>;
          };
          return json(reply, 200, {
            success: result.success,
            results: result.results.map((r) => ({ operation: r.operation.toLowerCase(), id: r.id, status: r.status })),
          });
        },

        getRecord: async (req: FastifyRequest<{ Params: RecordParams }>, reply) => {
          const zone = await zoneOf<{ record: GqlRecord | null }>(req, Ops.record, { id: req.params.id });
          if (!zone.record) throw new RestError(404, `no record ${req.params.id} in zone ${req.params.zone}`);
          return json(reply.header('etag', zone.record.etag), 200, record(zone.record));
        },

        updateRecord: async (req: FastifyRequest<{ Params: RecordParams }>, reply) => {
          const body = parseBody(UpdateRecordBody, req.body);
          const data = await run(req, Ops.updateRecord, {
            zone: req.params.zone,
            id: req.params.id,
            input: body,
            ifMatch: ifMatch(req),
          });
          const updated = data.updateRecord as GqlRecord;
          return json(reply.header('etag', updated.etag), 200, recordUpdated(updated));
        },

        deleteRecord: async (req: FastifyRequest<{ Params: RecordParams }>, reply) => {
          const data = await run(req, Ops.deleteRecord, {
            zone: req.params.zone,
            id: req.params.id,
            ifMatch: ifMatch(req),
          });
          return json(reply, 200, data.deleteRecord);
        },

        // DNSSEC
        getDnssec: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const zone = await zoneOf<{ dnssec: GqlDnssecStatus }>(req, Ops.dnssec, {});
          return json(reply, 200, dnssecStatus(zone.dnssec));
        },

        setDnssec: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const body = parseBody(DnssecBody, req.body);
          const variables = {
            zone: req.params.zone,
            input: {
              enable: body.enable,
              algorithm: body.algorithm,
              keySize: body.key_size,
              denial: body.denial,
              optOut: body.opt_out,
            },
          };
          if (prefersAsync(req.headers.prefer))
            return accepted(
              reply,
              (await run(req, LongOps.startSetDnssec, variables)).startSetZoneDnssec as GqlOperation,
            );
          const data = await run(req, Ops.setDnssec, variables);
          return json(reply, 200, dnssecStatus(data.setZoneDnssec as GqlDnssecStatus));
        },

        rotateDnssecKey: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          // The seed gives it no body: none, or an empty object (a ZSK rollover); key_type KSK rolls the KSK.
          const body = req.body === undefined ? {} : parseBody(RotateBody, req.body);
          const variables = { zone: req.params.zone, keyType: body.key_type ?? null };
          if (prefersAsync(req.headers.prefer))
            return accepted(
              reply,
              (await run(req, LongOps.startRotateDnssec, variables)).startRotateZoneDnssec as GqlOperation,
            );
          const data = await run(req, Ops.rotateDnssec, variables);
          return json(reply, 200, dnssecRollover(data.rotateZoneDnssec as GqlDnssecRollover));
        },

        confirmDsSeen: async (req: FastifyRequest<{ Params: ZoneParams }>, reply) => {
          const body = req.body === undefined ? {} : parseBody(DsSeenBody, req.body);
          const data = await run(req, Ops.dsSeen, { zone: req.params.zone, keyTag: body.key_tag ?? null });
          return json(reply, 200, dnssecStatus(data.confirmZoneDsSeen as GqlDnssecStatus));
        },

        // Long operations started with Prefer: respond-async: the caller who started one, and admins, see it.
        getOperation: async (req: FastifyRequest<{ Params: OperationParams }>, reply) => {
          const data = await run(req, LongOps.operation, { id: req.params.id });
          if (!data.operation) throw new RestError(404, `no operation ${JSON.stringify(req.params.id.slice(0, 64))}`);
          return json(reply, 200, renderOperation(data.operation as GqlOperation));
        },

        // Secondary zones
        listSecondaryZones: async (req, reply) => {
          const data = await run(req, Ops.secondaryZones, {});
          return json(reply, 200, {
            secondary_zones: (data.secondaryZones as GqlSecondaryZone[]).map(secondaryZone),
          });
        },

        createSecondaryZone: async (req, reply) => {
          const body = parseBody(CreateSecondaryZoneBody, req.body);
          const data = await run(req, Ops.createSecondaryZone, {
            input: { name: body.name, primary: body.primary, tsigKey: body.tsig_key ?? null },
          });
          const zone = data.createSecondaryZone as GqlSecondaryZone;
          void reply.header('location', `/api/v1/secondary-zones/${zone.name}`);
          return json(reply, 201, secondaryZone(zone));
        },

        getSecondaryZone: async (req: FastifyRequest<{ Params: SecondaryZoneParams }>, reply) => {
          const data = await run(req, Ops.secondaryZone, { name: req.params.name });
          if (!data.secondaryZone)
            throw new RestError(404, `no secondary zone ${JSON.stringify(req.params.name.slice(0, 254))}`);
          return json(reply, 200, secondaryZone(data.secondaryZone as GqlSecondaryZone));
        },

        deleteSecondaryZone: async (req: FastifyRequest<{ Params: SecondaryZoneParams }>, reply) => {
          const data = await run(req, Ops.deleteSecondaryZone, { name: req.params.name });
          return json(reply, 200, data.deleteSecondaryZone);
        },

        // Users
        listUsers: async (req, reply) => {
          const data = await run(req, Ops.users, {});
          return json(reply, 200, { users: (data.users as GqlUser[]).map((u) => user(u, { lastLogin: true })) });
        },

        createUser: async (req, reply) => {
          const body = parseBody(CreateUserBody, req.body);
          const data = await run(req, Ops.createUser, { input: { ...body, role: body.role.toUpperCase() } });
          return json(reply, 201, userCreated(data.createUser as GqlUser));
        },

        getMe: async (req, reply) => {
          const data = await run(req, Ops.me, {});
          return json(reply, 200, user(data.me as GqlUser, { lastLogin: true }));
        },

        changeMyPassword: async (req, reply) => {
          const body = parseBody(PasswordBody, req.body);
          const data = await run(req, Ops.changePassword, {
            currentPassword: body.current_password,
            newPassword: body.new_password,
          });
          const login = data.changeMyPassword as { token: string; expiresAt: string };
          return json(reply, 200, { token: login.token, expires_at: login.expiresAt });
        },

        getUser: async (req: FastifyRequest<{ Params: UserParams }>, reply) => {
          const data = await run(req, Ops.user, { id: req.params.id });
          if (!data.user) throw new RestError(404, `no user ${req.params.id}`);
          return json(reply, 200, user(data.user as GqlUser, { lastLogin: true }));
        },

        updateUser: async (req: FastifyRequest<{ Params: UserParams }>, reply) => {
          const body = parseBody(UpdateUserBody, req.body);
          const data = await run(req, Ops.updateUser, {
            id: req.params.id,
            input: { ...body, ...(body.role ? { role: body.role.toUpperCase() } : {}) },
          });
          return json(reply, 200, user(data.updateUser as GqlUser, { lastLogin: true }));
        },

        deleteUser: async (req: FastifyRequest<{ Params: UserParams }>, reply) => {
          const data = await run(req, Ops.deleteUser, { id: req.params.id });
          return json(reply, 200, data.deleteUser);
        },
      };
      // The routes are the table's: a row without a handler (or a handler without a row) is a bug found at start-up.
      for (const route of DNS_API_ROUTES) {
        const handler = handlers[route.openapi.operationId];
        if (!handler) throw new Error(`no handler for ${route.method} ${route.path} (${route.openapi.operationId})`);
        app.route({ method: route.method, url: route.path, handler });
      }
      const unused = Object.keys(handlers).filter((id) => !DNS_API_ROUTES.some((r) => r.openapi.operationId === id));
      if (unused.length) throw new Error(`handlers without a route: ${unused.join(', ')}`);
    },
  };
}
