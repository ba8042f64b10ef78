import { z, type ZodType } from 'zod';
import {
  BatchBody,
  CreateRecordBody,
  CreateUserBody,
  CreateZoneBody,
  DnssecBody,
  LoginBody,
  PasswordBody,
  RotateBody,
  UpdateRecordBody,
  UpdateUserBody,
  UpdateZoneBody,
} from './bodies';
import { RECORDS_PAGE_MAX } from './operations';

/**
 * The DNS API's machine-readable contract (OpenAPI 3.1), served at /api/v1/openapi.json. Request bodies come from
 * the zod schemas the routes validate with, so the two cannot drift; responses follow render.ts. Every status a
 * route answers with is listed (test/dns-api/openapi.test.ts drives each path and fails on an undescribed answer).
 */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/** A zod body as a JSON Schema 2020-12 object (OpenAPI 3.1's dialect), without its `$schema` line. */
function fromZod(schema: ZodType, description: string, example?: Json): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' });
  return { description, ...rest, ...(example ? { examples: [example] } : {}) };
}

const timestamp = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC' };
const int32 = { type: 'integer', minimum: 0, maximum: 2_147_483_647 };
const role = { type: 'string', enum: ['admin', 'operator', 'viewer'] };

/** A closed object: every listed property is present, nothing else is. */
function object(properties: Json, description?: string, optional: readonly string[] = []): Json {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}

const zoneSummary = {
  name: { type: 'string', description: 'Zone name, lower case, without the trailing dot' },
  records_count: { ...int32, description: 'Records the API shows (SOA and DNSSEC records not counted)' },
  created_at: timestamp,
  updated_at: timestamp,
};
const zoneSettings = {
  admin_email: { type: 'string' },
  refresh: int32,
  retry: int32,
  expire: int32,
  minimum: int32,
  default_ttl: int32,
};
const recordSummary = {
  id: { type: 'string', format: 'uuid' },
  name: { type: 'string', description: 'Owner name, fully qualified without the trailing dot' },
  type: { type: 'string', description: 'A, AAAA, CNAME, MX, TXT, …' },
  value: { type: 'string', description: 'Zone-file presentation form; names inside it end with a dot' },
  ttl: int32,
};
const userCreated = {
  id: { type: 'string', format: 'uuid' },
  username: { type: 'string' },
  email: { type: 'string' },
  role,
  created_at: timestamp,
};

const schemas: Record<string, Json> = {
  Error: object(
    {
      error: { type: 'string', description: 'One sentence saying what went wrong' },
      errors: {
        type: 'array',
        description: 'Each invalid field (422)',
        items: object({ field: { type: 'string' }, message: { type: 'string' } }),
      },
    },
    'Every error body',
    ['errors'],
  ),
  LoginRequest: fromZod(LoginBody, 'Credentials', { username: 'admin', password: 'the admin password' }),
  Token: object(
    {
      token: { type: 'string', description: 'An EdDSA-signed JWT: send it as `Authorization: Bearer <token>`' },
      expires_at: timestamp,
    },
    'A bearer token and when it expires',
  ),
  JsonWebKeySet: object(
    {
      keys: {
        type: 'array',
        items: object({
          kty: { type: 'string', const: 'OKP' },
          crv: { type: 'string', const: 'Ed25519' },
          x: { type: 'string' },
          kid: { type: 'string' },
          alg: { type: 'string', const: 'EdDSA' },
          use: { type: 'string', const: 'sig' },
        }),
      },
    },
    'The public keys tokens are signed with (RFC 7517)',
  ),
  ZoneSummary: object(zoneSummary, 'A zone in lists and as created'),
  ZoneList: object({ zones: { type: 'array', items: ref('ZoneSummary') } }),
  Zone: object(
    {
      name: zoneSummary.name,
      ...zoneSettings,
      records_count: zoneSummary.records_count,
      created_at: timestamp,
      updated_at: timestamp,
      nameservers: { type: 'array', items: { type: 'string' }, description: 'NS records at the apex' },
      dnssec_enabled: { type: 'boolean' },
    },
    'Zone details',
  ),
  ZoneUpdated: object(
    { name: zoneSummary.name, ...zoneSettings, updated_at: timestamp },
    'The zone name, the fields the request changed, and updated_at',
    Object.keys(zoneSettings),
  ),
  CreateZoneRequest: fromZod(
    CreateZoneBody,
    'A new zone (defaults for the settings not given), or with zone_file an RFC 1035 master file to import. The name ' +
      'has no `*` label and leaves room for its SOA names (ns1.<zone>, hostmaster.<zone>) in 255 octets',
    { name: 'shop.test', admin_email: 'dns@shop.test', default_ttl: 600 },
  ),
  UpdateZoneRequest: fromZod(UpdateZoneBody, 'Zone settings to change (at least one)'),
  DeleteResult: object({ success: { type: 'boolean' }, message: { type: 'string' } }, 'The outcome of a deletion'),
  RecordSummary: object(recordSummary, 'A record in lists'),
  RecordList: object(
    {
      zone: { type: 'string' },
      records: { type: 'array', items: ref('RecordSummary') },
      next_cursor: { type: ['string', 'null'], description: 'With `limit` only: the next page, null on the last' },
    },
    'Records ordered by name, type and value',
    ['next_cursor'],
  ),
  RecordCreated: object({ ...recordSummary, created_at: timestamp }),
  Record: object({ ...recordSummary, created_at: timestamp, updated_at: timestamp }),
  RecordUpdated: object({ ...recordSummary, updated_at: timestamp }),
  CreateRecordRequest: fromZod(CreateRecordBody, 'name: `@`, relative to the zone, or fully qualified', {
    name: 'www',
    type: 'A',
    value: '192.0.2.10',
    ttl: 300,
  }),
  UpdateRecordRequest: fromZod(UpdateRecordBody, 'What to change (at least one)'),
  BatchRequest: fromZod(BatchBody, 'All operations apply or none (at most DNS_API_MAX_BATCH, else 413)', {
    operations: [
      { operation: 'create', name: 'api', type: 'CNAME', value: 'www' },
      { operation: 'update', id: '0b5e1c1e-7d1f-4a8e-9f4e-3f0f2b6c9d10', ttl: 120 },
      { operation: 'delete', id: '6f1d2c3b-4a5e-4f60-8b7a-9c8d7e6f5a4b' },
    ],
  }),
  BatchResult: object({
    success: { type: 'boolean' },
    results: {
      type: 'array',
      items: object({
        operation: { type: 'string', enum: ['create', 'update', 'delete'] },
        id: { type: 'string', format: 'uuid' },
        status: { type: 'string', const: 'success' },
      }),
    },
  }),
  DnssecKey: object(
    {
      id: { type: 'string', format: 'uuid' },
      algorithm: { type: 'string', enum: ['RSASHA256', 'ECDSAP256SHA256', 'ECDSAP384SHA384', 'ED25519'] },
      key_type: { type: 'string', enum: ['KSK', 'ZSK'], description: 'KSK: DNSKEY flags 257; ZSK: 256' },
      bits: { type: 'integer', minimum: 1, description: 'RSA modulus length, or the curve’s size' },
      created_at: timestamp,
      expires_at: { ...timestamp, description: 'End of the key’s lifetime by policy (ISO 8601 UTC)' },
      key_tag: { type: 'integer', minimum: 0, maximum: 65_535, description: 'RFC 4034 Appendix B' },
      state: {
        type: 'string',
        enum: ['published', 'active', 'retired'],
        description:
          'published: in the DNSKEY RRset, not signing yet; active: signing; retired: published, not signing',
      },
      publish_at: { ...timestamp, description: 'When it entered the DNSKEY RRset' },
      activate_at: { ...timestamp, description: 'When it starts (or started) signing' },
      inactive_at: {
        ...timestamp,
        type: ['string', 'null'],
        description: 'When it stops signing; null: until replaced',
      },
      delete_at: {
        ...timestamp,
        type: ['string', 'null'],
        description: 'When it leaves the DNSKEY RRset; null: never',
      },
    },
    'A DNSSEC key of the zone (the private key never leaves the server)',
  ),
  DsRecord: object(
    {
      key_tag: { type: 'string', pattern: '^\\d{1,5}$', description: 'Key tag of the KSK, decimal' },
      algorithm: { type: 'string', pattern: '^\\d{1,3}$', description: 'Algorithm number, decimal ("13")' },
      digest_type: { type: 'string', enum: ['2', '4'], description: '"2": SHA-256, "4": SHA-384' },
      digest: { type: 'string', pattern: '^[0-9A-F]+$', description: 'Upper-case hex' },
    },
    'A DS record for the parent zone, ready to paste at a registrar',
  ),
  DnssecStatus: object(
    {
      enabled: { type: 'boolean' },
      keys: { type: 'array', items: ref('DnssecKey'), description: 'Keys still published, oldest first' },
      ds_records: { type: 'array', items: ref('DsRecord'), description: 'Two per KSK: digest types 2 and 4' },
    },
    'Whether the zone is signed, its keys and its DS records',
  ),
  DnssecRequest: fromZod(DnssecBody, 'DNSSEC on (a new KSK and ZSK) or off (its keys removed)', {
    enable: true,
    algorithm: 'ECDSAP256SHA256',
  }),
  RotateRequest: fromZod(RotateBody, 'Nothing: a rollover takes no parameters'),
  DnssecRollover: object(
    {
      success: { type: 'boolean' },
      message: { type: 'string', description: 'What happens when, in words' },
      old_key_id: { type: 'string', format: 'uuid', description: 'The ZSK being replaced' },
      new_key_id: { type: 'string', format: 'uuid', description: 'The new ZSK, published now' },
      rollover_completion_date: { ...timestamp, description: 'When the old ZSK is removed (ISO 8601 UTC)' },
    },
    'A ZSK rollover by pre-publication, started',
  ),
  SigningKey: object(
    {
      kid: { type: 'string', description: 'The key id (RFC 7638 thumbprint), as in the JWKS' },
      algorithm: { type: 'string', const: 'EdDSA' },
      created_at: timestamp,
      retired_at: { ...timestamp, type: ['string', 'null'], description: 'When a newer key took over; null in use' },
      verifies_until: {
        ...timestamp,
        type: ['string', 'null'],
        description: 'Until when it verifies the tokens it signed (then deleted); null in use',
      },
      signing: { type: 'boolean', description: 'Whether it signs new tokens' },
    },
    'A token signing key (public facts; the private key stays sealed in the store)',
  ),
  SigningKeyList: object({ keys: { type: 'array', items: ref('SigningKey') } }),
  SigningKeyRotation: object(
    {
      success: { type: 'boolean' },
      message: { type: 'string', description: 'What happens when, in words' },
      old_key_id: { type: ['string', 'null'], description: 'The key that signed until now' },
      new_key_id: { type: 'string', description: 'The key that signs from now on' },
      old_key_verifies_until: { ...timestamp, type: ['string', 'null'], description: 'When the old key is deleted' },
    },
    'A signing key rotation: new tokens are signed by the new key; tokens of the old one stay valid until they expire',
  ),
  UserCreated: object(userCreated, 'A user as created'),
  User: object(
    {
      ...userCreated,
      disabled: { type: 'boolean' },
      last_login: { ...timestamp, type: ['string', 'null'], description: 'Null until the first login' },
    },
    'A user',
  ),
  UserList: object({ users: { type: 'array', items: ref('User') } }),
  CreateUserRequest: fromZod(CreateUserBody, 'A new user', {
    username: 'ci',
    email: 'ci@example.com',
    password: 'a long ci password',
    role: 'operator',
  }),
  UpdateUserRequest: fromZod(UpdateUserBody, 'What to change (at least one); the last enabled admin stays one'),
  PasswordRequest: fromZod(PasswordBody, "The caller's current and new password"),
};

const errorResponse = (description: string, headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref('Error') } },
});

const responses: Record<string, Json> = {
  BadRequest: errorResponse(
    'Malformed JSON, a forbidden key (`__proto__`, `constructor` with `prototype`), an empty body where one is ' +
      'needed, a body that is not an object, or a malformed query',
  ),
  Unauthorized: errorResponse('Missing, invalid or expired token, or wrong credentials', {
    'WWW-Authenticate': { required: true, schema: { type: 'string' } },
  }),
  Forbidden: errorResponse('The role of the caller may not do this'),
  NotFound: errorResponse('No such zone, record or user'),
  Conflict: errorResponse('It exists already'),
  DnssecConflict: errorResponse(
    'Not in this state: DNSSEC already on (enable) or off (disable, rotate), or a ZSK rollover in progress ' +
      '(disable, rotate; the message says what it waits for)',
  ),
  ExportConflict: errorResponse(
    "The zone's SOA cannot be written (a zone stored before zone names were checked): delete it and create it anew",
  ),
  PreconditionFailed: errorResponse('If-Match no longer matches: nothing changed'),
  PayloadTooLarge: errorResponse('The body or the batch is over its limit'),
  UnsupportedMediaType: errorResponse(
    'The body is not JSON: its content-type is neither application/json nor a +json type (an empty body counts as none)',
  ),
  Unprocessable: errorResponse('A value does not validate: `errors` names each field'),
  TooManyRequests: errorResponse('Too many failed logins for this user name or address', {
    'Retry-After': { required: true, description: 'Seconds to wait', schema: { type: 'string', pattern: '^\\d+$' } },
  }),
  InternalError: errorResponse('A bug: the log has the details'),
  Unavailable: errorResponse('The store or a subgraph is not reachable'),
  Timeout: errorResponse(
    'A subgraph did not answer in time. For a write the outcome is unknown (the message says so): the change may ' +
      'still be applied, so read the zone or record back before retrying',
  ),
};

const etagHeader = { ETag: { required: true, description: 'Pass as If-Match', schema: { type: 'string' } } };

const ok = (status: string, description: string, schema: string, headers?: Json): Record<string, Json> => ({
  [status]: {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: ref(schema) } },
  },
});

/** What every operation answered through the graph may also say. */
const serverErrors = { 500: response('InternalError'), 503: response('Unavailable'), 504: response('Timeout') };
const authErrors = { 401: response('Unauthorized') };
const bodyErrors = {
  400: response('BadRequest'),
  413: response('PayloadTooLarge'),
  415: response('UnsupportedMediaType'),
  422: response('Unprocessable'),
};

const param = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });
const jsonBody = (schema: string): Json => ({
  required: true,
  content: { 'application/json': { schema: ref(schema) } },
});

export interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  security?: Json[];
  parameters?: Json[];
  requestBody?: Json;
  responses: Json;
}

const op = (o: Operation): Operation => o;

export interface PathItem {
  parameters?: Json[];
  get?: Operation;
  put?: Operation;
  post?: Operation;
  delete?: Operation;
}

const paths: Record<string, PathItem> = {
  '/openapi.json': {
    get: op({
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['meta'],
      security: [],
      responses: {
        200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    }),
  },
  '/.well-known/jwks.json': {
    get: op({
      operationId: 'getJwks',
      summary: 'The public keys tokens are signed with (no login needed)',
      tags: ['auth'],
      security: [],
      responses: { ...ok('200', 'The key set', 'JsonWebKeySet'), ...serverErrors },
    }),
  },
  '/auth/keys': {
    get: op({
      operationId: 'listSigningKeys',
      summary: 'The keys that verify tokens, the one that signs last (admin)',
      tags: ['auth'],
      responses: {
        ...ok('200', 'The keys', 'SigningKeyList'),
        ...authErrors,
        403: response('Forbidden'),
        ...serverErrors,
      },
    }),
  },
  '/auth/keys/rotate': {
    post: op({
      operationId: 'rotateSigningKey',
      summary: 'A new key signs tokens from now on; the old one verifies its tokens until they expire (admin)',
      tags: ['auth'],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: ref('RotateRequest') } },
      },
      responses: {
        ...ok('200', 'The rotation', 'SigningKeyRotation'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        ...serverErrors,
      },
    }),
  },
  '/auth/login': {
    post: op({
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
    }),
  },
  '/zones': {
    get: op({
      operationId: 'listZones',
      summary: 'Every zone',
      tags: ['zones'],
      responses: { ...ok('200', 'The zones', 'ZoneList'), ...authErrors, ...serverErrors },
    }),
    post: op({
      operationId: 'createZone',
      summary: 'Creates a zone (NS records from the configuration) or imports a master file (its serial kept)',
      tags: ['zones'],
      requestBody: jsonBody('CreateZoneRequest'),
      responses: {
        ...ok('201', 'Created', 'ZoneSummary', {
          ...etagHeader,
          Location: { required: true, schema: { type: 'string' } },
        }),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        409: response('Conflict'),
        ...serverErrors,
      },
    }),
  },
  '/zones/{zone}': {
    parameters: [param('zone')],
    get: op({
      operationId: 'getZone',
      summary: 'Zone details',
      tags: ['zones'],
      responses: {
        ...ok('200', 'The zone', 'Zone', etagHeader),
        ...authErrors,
        404: response('NotFound'),
        ...serverErrors,
      },
    }),
    put: op({
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
    }),
    delete: op({
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
    }),
  },
  '/zones/{zone}/export': {
    parameters: [param('zone')],
    get: op({
      operationId: 'exportZone',
      summary: 'The zone as an RFC 1035 master file',
      tags: ['zones'],
      responses: {
        200: { description: 'The master file', content: { 'text/dns': { schema: { type: 'string' } } } },
        ...authErrors,
        404: response('NotFound'),
        409: response('ExportConflict'),
        ...serverErrors,
      },
    }),
  },
  '/zones/{zone}/records': {
    parameters: [param('zone')],
    get: op({
      operationId: 'listRecords',
      summary: 'Records of a zone (SOA excluded): all, or a page with limit and cursor',
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
        ...serverErrors,
      },
    }),
    post: op({
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
    }),
  },
  '/zones/{zone}/records/batch': {
    parameters: [param('zone')],
    post: op({
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
    }),
  },
  '/zones/{zone}/records/{id}': {
    parameters: [param('zone'), param('recordId')],
    get: op({
      operationId: 'getRecord',
      summary: 'One record',
      tags: ['records'],
      responses: {
        ...ok('200', 'The record', 'Record', etagHeader),
        ...authErrors,
        404: response('NotFound'),
        ...serverErrors,
      },
    }),
    put: op({
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
    }),
    delete: op({
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
    }),
  },
  '/zones/{zone}/dnssec': {
    parameters: [param('zone')],
    get: op({
      operationId: 'getDnssec',
      summary: 'DNSSEC status: whether the zone is signed, its keys and DS records',
      tags: ['dnssec'],
      responses: {
        ...ok('200', 'The status', 'DnssecStatus'),
        ...authErrors,
        404: response('NotFound'),
        ...serverErrors,
      },
    }),
    post: op({
      operationId: 'setDnssec',
      summary:
        'Signs the zone with a new KSK and ZSK (enable true), or stops signing and removes its keys (enable false)',
      tags: ['dnssec'],
      requestBody: jsonBody('DnssecRequest'),
      responses: {
        ...ok('200', 'The status after the change', 'DnssecStatus'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('DnssecConflict'),
        ...serverErrors,
      },
    }),
  },
  '/zones/{zone}/dnssec/rotate': {
    parameters: [param('zone')],
    post: op({
      operationId: 'rotateDnssecKey',
      summary: 'Starts a ZSK rollover by pre-publication (RFC 7583)',
      tags: ['dnssec'],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: ref('RotateRequest') } },
      },
      responses: {
        ...ok('200', 'The rollover started', 'DnssecRollover'),
        ...bodyErrors,
        ...authErrors,
        403: response('Forbidden'),
        404: response('NotFound'),
        409: response('DnssecConflict'),
        ...serverErrors,
      },
    }),
  },
  '/users': {
    get: op({
      operationId: 'listUsers',
      summary: 'Every user (admin)',
      tags: ['users'],
      responses: { ...ok('200', 'The users', 'UserList'), ...authErrors, 403: response('Forbidden'), ...serverErrors },
    }),
    post: op({
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
    }),
  },
  '/users/me': {
    get: op({
      operationId: 'getMe',
      summary: 'The calling user',
      tags: ['users'],
      responses: { ...ok('200', 'The caller', 'User'), ...authErrors, ...serverErrors },
    }),
  },
  '/users/me/password': {
    put: op({
      operationId: 'changeMyPassword',
      summary: "Changes the caller's password: older tokens stop working, a new one is returned",
      tags: ['users'],
      requestBody: jsonBody('PasswordRequest'),
      responses: { ...ok('200', 'A new token', 'Token'), ...bodyErrors, ...authErrors, ...serverErrors },
    }),
  },
  '/users/{id}': {
    parameters: [param('userId')],
    get: op({
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
    }),
    put: op({
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
    }),
    delete: op({
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
    }),
  },
};

export const OPENAPI = {
  openapi: '3.1.0',
  jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
  info: {
    title: 'onegraph DNS server API',
    version: '1.0.0',
    description:
      'Zones, records, batches, DNSSEC and users of the embedded authoritative DNS server. Every write is answered over ' +
      'DNS by the time its response arrives. Errors are `{"error": "<one sentence>", "errors"?: [{field, message}]}`.',
  },
  servers: [{ url: '/api/v1' }],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: 'auth', description: 'Tokens and the keys that sign them' },
    { name: 'zones', description: 'Zones and their SOA settings' },
    { name: 'records', description: 'Records, one id each' },
    { name: 'dnssec', description: 'Zone signing: keys, DS records and ZSK rollovers' },
    { name: 'users', description: 'Users and roles: admin, operator, viewer' },
    { name: 'meta', description: 'This document' },
  ],
  paths,
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A token from POST /auth/login (EdDSA; keys at /.well-known/jwks.json)',
      },
    },
    parameters: {
      zone: {
        name: 'zone',
        in: 'path',
        required: true,
        description: 'Zone name (case-insensitive, trailing dot allowed)',
        schema: { type: 'string' },
      },
      recordId: { name: 'id', in: 'path', required: true, description: 'Record id', schema: { type: 'string' } },
      userId: { name: 'id', in: 'path', required: true, description: 'User id', schema: { type: 'string' } },
      ifMatch: {
        name: 'If-Match',
        in: 'header',
        description: 'The ETag of a GET: change only if it still matches (else 412)',
        schema: { type: 'string' },
      },
    },
    schemas,
    responses,
  },
};
