import type { PreparedOperation } from '../../graph';
import { docPath, type RouteDoc } from '../route-docs';
import {
  authErrors,
  bodyErrors,
  etagHeader,
  jsonBody,
  ok,
  param,
  ref,
  response,
  serverErrors,
  wholeZoneErrors,
  type Json,
  type Operation,
} from './openapi-components';
import { LongOps } from './long-operations';
import { asyncAnswers, operationIdParam, preferParam } from './openapi-operations';
import { DnsApiOps as Ops, RECORDS_PAGE_MAX } from './operations';

/**
 * One path and method of `/api/v1`: its OpenAPI operation (summary, parameters, body schema, every status it answers
 * with), the path's parameters, and the fixed GraphQL operations it runs. The Fastify routes are registered from this
 * table (index.ts holds one handler per operationId), the OpenAPI document and docs/routes/dns-api.md are generated
 * from it.
 */
export interface DnsApiRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to `/api/v1`, in Fastify's form (`:zone`). */
  readonly path: string;
  /** The OpenAPI parameters of the path (shared by every method on it). */
  readonly pathParameters?: readonly Json[];
  readonly openapi: Operation;
  /** The GraphQL operations it runs (none: the adapter answers itself). */
  readonly graphql?: readonly PreparedOperation[];
}

/** The DNS API's route table, in the order of its OpenAPI document. */
export const DNS_API_ROUTES: readonly DnsApiRoute[] = [
  {
    method: 'GET',
    path: '/openapi.json',
    openapi: {
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['meta'],
      security: [],
      responses: {
        200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
  {
    method: 'GET',
    path: '/.well-known/jwks.json',
    graphql: [Ops.jwks],
    openapi: {
      operationId: 'getJwks',
      summary: 'The public keys tokens are signed with (no login needed)',
      tags: ['auth'],
      security: [],
      responses: { ...ok('200', 'The key set', 'JsonWebKeySet'), ...serverErrors },
    },
  },
  {
    method: 'GET',
    path: '/auth/keys',
    graphql: [Ops.signingKeys],
    openapi: {
      operationId: 'listSigningKeys',
      summary: 'The keys that verify tokens, the one that signs last (admin)',
      tags: ['auth'],
      responses: {
        ...ok('200', 'The keys', 'SigningKeyList'),
        ...authErrors,
        403: response('Forbidden'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'POST',
    path: '/auth/keys/rotate',
    graphql: [Ops.rotateSigningKey],
    openapi: {
      operationId: 'rotateSigningKey',
      summary: 'A new key signs tokens from now on; the old one verifies its tokens until they expire (admin)',
      tags: ['auth'],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: ref('EmptyRequest') } },
      },
      responses: {
        ...ok('200', 'The rotation', 'SigningKeyRotation'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'POST',
    path: '/auth/login',
    graphql: [Ops.login],
    openapi: {
      operationId: 'login',
      summary: 'A token for a user name and password',
      tags: ['auth'],
      security: [],
      requestBody: jsonBody('LoginRequest'),
      responses: {
        ...ok('200', 'The token', 'Token'),
        ...bodyErrors,
        ...authErrors,
        429: response('TooManyRequests'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/zones',
    graphql: [Ops.zones],
    openapi: {
      operationId: 'listZones',
      summary: 'Every zone',
      tags: ['zones'],
      responses: { ...ok('200', 'The zones', 'ZoneList'), ...authErrors, ...serverErrors },
    },
  },
  {
    method: 'POST',
    path: '/zones',
    graphql: [Ops.createZone, LongOps.startCreateZone],
    openapi: {
      operationId: 'createZone',
      summary:
        'Creates a zone (NS records from the configuration) or imports a master file (its serial kept); in the ' +
        'background with Prefer: respond-async',
      tags: ['zones'],
      parameters: [preferParam],
      requestBody: jsonBody('CreateZoneRequest'),
      responses: {
        ...ok('201', 'Created', 'ZoneSummary', {
          ...etagHeader,
          Location: { required: true, schema: { type: 'string' } },
        }),
        ...asyncAnswers,
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/zones/:zone',
    pathParameters: [param('zone')],
    graphql: [Ops.zone],
    openapi: {
      operationId: 'getZone',
      summary: 'Zone details',
      tags: ['zones'],
      responses: {
        ...ok('200', 'The zone', 'Zone', etagHeader),
        ...authErrors,
        404: response('NotFound'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'PUT',
    path: '/zones/:zone',
    pathParameters: [param('zone')],
    graphql: [Ops.updateZone],
    openapi: {
      operationId: 'updateZone',
      summary: 'Changes zone settings (with If-Match: only if unchanged)',
      tags: ['zones'],
      parameters: [param('ifMatch')],
      requestBody: jsonBody('UpdateZoneRequest'),
      responses: {
        ...ok('200', 'The changed fields', 'ZoneUpdated', etagHeader),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        412: response('PreconditionFailed'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'DELETE',
    path: '/zones/:zone',
    pathParameters: [param('zone')],
    graphql: [Ops.deleteZone],
    openapi: {
      operationId: 'deleteZone',
      summary: 'Deletes a zone and all its records (with If-Match: only if unchanged)',
      tags: ['zones'],
      parameters: [param('ifMatch')],
      responses: {
        ...ok('200', 'Deleted', 'DeleteResult'),
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        412: response('PreconditionFailed'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/zones/:zone/export',
    pathParameters: [param('zone')],
    graphql: [Ops.zoneVersion, Ops.exportPage],
    openapi: {
      operationId: 'exportZone',
      summary: 'The zone as an RFC 1035 master file (streamed a page at a time; a whole-zone read)',
      tags: ['zones'],
      responses: {
        200: { description: 'The master file', content: { 'text/dns': { schema: { type: 'string' } } } },
        ...authErrors,
        404: response('NotFound'),
        409: response('ExportConflict'),
        ...wholeZoneErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/zones/:zone/records',
    pathParameters: [param('zone')],
    graphql: [Ops.zoneVersion, Ops.records, Ops.recordPage],
    openapi: {
      operationId: 'listRecords',
      summary: 'Records of a zone (SOA excluded): all (streamed; a whole-zone read), or a page with limit and cursor',
      tags: ['records'],
      parameters: [
        { name: 'type', in: 'query', description: 'Only records of this type', schema: { type: 'string' } },
        {
          name: 'limit',
          in: 'query',
          description: `Page size, 1 to ${RECORDS_PAGE_MAX}; the answer then has next_cursor (without it: every record)`,
          schema: { type: 'string', pattern: '^\\d{1,9}$' },
        },
        { name: 'cursor', in: 'query', description: 'next_cursor of the page before', schema: { type: 'string' } },
      ],
      responses: {
        ...ok('200', 'The records', 'RecordList'),
        400: response('BadRequest'),
        ...authErrors,
        404: response('NotFound'),
        422: response('Unprocessable'),
        ...wholeZoneErrors,
      },
    },
  },
  {
    method: 'POST',
    path: '/zones/:zone/records',
    pathParameters: [param('zone')],
    graphql: [Ops.createRecord],
    openapi: {
      operationId: 'createRecord',
      summary: 'Adds a record; the DNS server answers with it by the time this returns',
      tags: ['records'],
      requestBody: jsonBody('CreateRecordRequest'),
      responses: {
        ...ok('201', 'Created', 'RecordCreated', etagHeader),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'POST',
    path: '/zones/:zone/records/batch',
    pathParameters: [param('zone')],
    graphql: [Ops.batch],
    openapi: {
      operationId: 'batchRecords',
      summary: 'Creates, updates and deletes records: all or none, in one transaction',
      tags: ['records'],
      requestBody: jsonBody('BatchRequest'),
      responses: {
        ...ok('200', 'Every operation applied', 'BatchResult'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/zones/:zone/records/:id',
    pathParameters: [param('zone'), param('recordId')],
    graphql: [Ops.record],
    openapi: {
      operationId: 'getRecord',
      summary: 'One record',
      tags: ['records'],
      responses: {
        ...ok('200', 'The record', 'Record', etagHeader),
        ...authErrors,
        404: response('NotFound'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'PUT',
    path: '/zones/:zone/records/:id',
    pathParameters: [param('zone'), param('recordId')],
    graphql: [Ops.updateRecord],
    openapi: {
      operationId: 'updateRecord',
      summary: 'Changes the value and/or TTL of a record (its id stays; with If-Match: only if unchanged)',
      tags: ['records'],
      parameters: [param('ifMatch')],
      requestBody: jsonBody('UpdateRecordRequest'),
      responses: {
        ...ok('200', 'The record', 'RecordUpdated', etagHeader),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('Conflict'),
        412: response('PreconditionFailed'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'DELETE',
    path: '/zones/:zone/records/:id',
    pathParameters: [param('zone'), param('recordId')],
    graphql: [Ops.deleteRecord],
    openapi: {
      operationId: 'deleteRecord',
      summary: 'Deletes a record (with If-Match: only if unchanged)',
      tags: ['records'],
      parameters: [param('ifMatch')],
      responses: {
        ...ok('200', 'Deleted', 'DeleteResult'),
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        412: response('PreconditionFailed'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/zones/:zone/dnssec',
    pathParameters: [param('zone')],
    graphql: [Ops.dnssec],
    openapi: {
      operationId: 'getDnssec',
      summary: 'DNSSEC status: whether the zone is signed, its keys and DS records',
      tags: ['dnssec'],
      responses: {
        ...ok('200', 'The status', 'DnssecStatus'),
        ...authErrors,
        404: response('NotFound'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'POST',
    path: '/zones/:zone/dnssec',
    pathParameters: [param('zone')],
    graphql: [Ops.setDnssec, LongOps.startSetDnssec],
    openapi: {
      operationId: 'setDnssec',
      summary:
        'Signs the zone with a new KSK and ZSK (enable true), or stops signing and removes its keys (enable false); ' +
        'in the background with Prefer: respond-async',
      tags: ['dnssec'],
      parameters: [preferParam],
      requestBody: jsonBody('DnssecRequest'),
      responses: {
        ...ok('200', 'The status after the change', 'DnssecStatus'),
        ...asyncAnswers,
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('DnssecConflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'POST',
    path: '/zones/:zone/dnssec/rotate',
    pathParameters: [param('zone')],
    graphql: [Ops.rotateDnssec, LongOps.startRotateDnssec],
    openapi: {
      operationId: 'rotateDnssecKey',
      summary:
        'Starts a ZSK rollover by pre-publication (RFC 7583; no body, {} or key_type ZSK) or a KSK rollover by ' +
        "double-KSK (key_type KSK: CDS/CDNSKEY published once the new KSK is ready; the old KSK leaves after the parent's " +
        'DS for the new one is seen); in the background with Prefer: respond-async',
      tags: ['dnssec'],
      parameters: [preferParam],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: ref('RotateRequest') } },
      },
      responses: {
        ...ok('200', 'The rollover started', 'DnssecRollover'),
        ...asyncAnswers,
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('DnssecConflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'POST',
    path: '/zones/:zone/dnssec/ds-seen',
    pathParameters: [param('zone')],
    graphql: [Ops.dsSeen],
    openapi: {
      operationId: 'confirmDsSeen',
      summary:
        "The parent zone's DS for the new KSK of the KSK rollover in progress is there (by hand, like Knot's " +
        'zone-ksk-submitted): the old KSK leaves after the DS TTL + Dprp + retire safety',
      tags: ['dnssec'],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: ref('DsSeenRequest') } },
      },
      responses: {
        ...ok('200', 'The status after it, with the rollover retiring', 'DnssecStatus'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('DnssecConflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/secondary-zones',
    graphql: [Ops.secondaryZones],
    openapi: {
      operationId: 'listSecondaryZones',
      summary: 'Every zone served as a secondary of another server, with how its transfers go here',
      tags: ['secondary zones'],
      responses: { ...ok('200', 'The secondary zones', 'SecondaryZoneList'), ...authErrors, ...serverErrors },
    },
  },
  {
    method: 'POST',
    path: '/secondary-zones',
    graphql: [Ops.createSecondaryZone],
    openapi: {
      operationId: 'createSecondaryZone',
      summary:
        'Serves a zone as a secondary of a primary server (every replica; the first transfer starts at once) ' +
        '(operator, admin)',
      tags: ['secondary zones'],
      requestBody: jsonBody('CreateSecondaryZoneRequest'),
      responses: {
        ...ok('201', 'Added', 'SecondaryZone', { Location: { required: true, schema: { type: 'string' } } }),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/secondary-zones/:name',
    pathParameters: [param('secondaryZone')],
    graphql: [Ops.secondaryZone],
    openapi: {
      operationId: 'getSecondaryZone',
      summary: 'One secondary zone',
      tags: ['secondary zones'],
      responses: {
        ...ok('200', 'The secondary zone', 'SecondaryZone'),
        ...authErrors,
        404: response('NotFound'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'DELETE',
    path: '/secondary-zones/:name',
    pathParameters: [param('secondaryZone')],
    graphql: [Ops.deleteSecondaryZone],
    openapi: {
      operationId: 'deleteSecondaryZone',
      summary: 'Stops serving a secondary zone added through the API (operator, admin)',
      tags: ['secondary zones'],
      responses: {
        ...ok('200', 'Deleted', 'DeleteResult'),
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/operations/:id',
    pathParameters: [operationIdParam],
    graphql: [LongOps.operation],
    openapi: {
      operationId: 'getOperation',
      summary:
        'A long write started with Prefer: respond-async: running, succeeded with its result or failed with its ' +
        'error (the user who started it, and admins)',
      tags: ['operations'],
      responses: {
        ...ok('200', 'The operation', 'Operation'),
        ...authErrors,
        404: response('NoOperation'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/users',
    graphql: [Ops.users],
    openapi: {
      operationId: 'listUsers',
      summary: 'Every user (admin)',
      tags: ['users'],
      responses: { ...ok('200', 'The users', 'UserList'), ...authErrors, 403: response('Forbidden'), ...serverErrors },
    },
  },
  {
    method: 'POST',
    path: '/users',
    graphql: [Ops.createUser],
    openapi: {
      operationId: 'createUser',
      summary: 'Creates a user (admin)',
      tags: ['users'],
      requestBody: jsonBody('CreateUserRequest'),
      responses: {
        ...ok('201', 'Created', 'UserCreated'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'GET',
    path: '/users/me',
    graphql: [Ops.me],
    openapi: {
      operationId: 'getMe',
      summary: 'The calling user',
      tags: ['users'],
      responses: { ...ok('200', 'The caller', 'User'), ...authErrors, ...serverErrors },
    },
  },
  {
    method: 'PUT',
    path: '/users/me/password',
    graphql: [Ops.changePassword],
    openapi: {
      operationId: 'changeMyPassword',
      summary: "Changes the caller's password: older tokens stop working, a new one is returned",
      tags: ['users'],
      requestBody: jsonBody('PasswordRequest'),
      responses: { ...ok('200', 'A new token', 'Token'), ...bodyErrors, ...authErrors, ...serverErrors },
    },
  },
  {
    method: 'GET',
    path: '/users/:id',
    pathParameters: [param('userId')],
    graphql: [Ops.user],
    openapi: {
      operationId: 'getUser',
      summary: 'One user (admin)',
      tags: ['users'],
      responses: {
        ...ok('200', 'The user', 'User'),
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'PUT',
    path: '/users/:id',
    pathParameters: [param('userId')],
    graphql: [Ops.updateUser],
    openapi: {
      operationId: 'updateUser',
      summary: 'Changes email, role, password or disabled (admin)',
      tags: ['users'],
      requestBody: jsonBody('UpdateUserRequest'),
      responses: {
        ...ok('200', 'The user', 'User'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
  {
    method: 'DELETE',
    path: '/users/:id',
    pathParameters: [param('userId')],
    graphql: [Ops.deleteUser],
    openapi: {
      operationId: 'deleteUser',
      summary: 'Deletes a user (admin; not the last enabled admin)',
      tags: ['users'],
      responses: {
        ...ok('200', 'Deleted', 'DeleteResult'),
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('Conflict'),
        ...serverErrors,
      },
    },
  },
];

/** The table's rows as the docs show them. */
export function dnsApiRouteDocs(): RouteDoc[] {
  return DNS_API_ROUTES.map((r) => {
    const body = (r.openapi.requestBody?.content as { 'application/json'?: { schema?: Json } } | undefined)?.[
      'application/json'
    ]?.schema?.$ref;
    const query = (r.openapi.parameters ?? []).filter((p) => p.in === 'query').map((p) => String(p.name));
    const input = [
      ...(typeof body === 'string' ? [`body ${body.split('/').pop() ?? ''}`] : []),
      ...(query.length ? [`query ${query.join(', ')}`] : []),
    ].join('; ');
    return {
      method: r.method,
      path: `/api/v1${docPath(r.path)}`,
      summary: r.openapi.summary,
      ...(r.graphql?.length ? { operation: r.graphql.map((o) => o.name).join(', ') } : {}),
      ...(input ? { input } : {}),
      statuses: Object.keys(r.openapi.responses).map(Number),
    };
  });
}
