import { z, type ZodType } from 'zod';
import {
  BatchBody,
  CreateRecordBody,
  CreateSecondaryZoneBody,
  CreateUserBody,
  CreateZoneBody,
  DnssecBody,
  LoginBody,
  PasswordBody,
  RotateBody,
  EmptyBody,
  DsSeenBody,
  UpdateRecordBody,
  UpdateUserBody,
  UpdateZoneBody,
} from './bodies';

/**
 * The parts of the DNS API's OpenAPI document that routes share: schemas (request bodies from the zod schemas the
 * routes validate with, so the two cannot drift; responses follow render.ts), named responses and parameters.
 */
export type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
export const response = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

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

export const schemas: Record<string, Json> = {
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
      cds_at: {
        ...timestamp,
        type: ['string', 'null'],
        description: 'A KSK: when its CDS/CDNSKEY are published at the apex; null: never',
      },
      cds_until: {
        ...timestamp,
        type: ['string', 'null'],
        description: 'A KSK: when its CDS/CDNSKEY leave the apex; null: not planned',
      },
      ds_seen_at: {
        ...timestamp,
        type: ['string', 'null'],
        description: "A KSK: when the parent's DS for it was seen in a rollover; null: not (yet)",
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
      rollovers: {
        type: 'array',
        items: ref('RolloverProgress'),
        minItems: 1,
        description: 'The rollovers in progress (a KSK one, a ZSK one); absent when none is',
      },
      denial: {
        type: ['string', 'null'],
        enum: ['NSEC', 'NSEC3', null],
        description: 'How the zone proves names and types do not exist; null when not signed',
      },
      nsec3param: {
        oneOf: [{ type: 'null' }, ref('Nsec3Param')],
        description: 'NSEC3’s parameters; null unless the denial is NSEC3',
      },
    },
    'Whether the zone is signed, its keys, its DS records and how it denies existence',
    ['rollovers'],
  ),
  Nsec3Param: object(
    {
      algorithm: { type: 'integer', const: 1, description: 'Hash algorithm: SHA-1' },
      flags: { type: 'integer', const: 0, description: 'NSEC3PARAM flags (Opt-Out is a flag of the NSEC3 records)' },
      iterations: { type: 'integer', const: 0, description: 'Extra iterations: none (RFC 9276)' },
      salt: { type: 'string', const: '-', description: 'No salt (RFC 9276)' },
      opt_out: { type: 'boolean', description: 'Unsigned delegations left out of the chain (RFC 5155 §6)' },
    },
    'An NSEC3 chain’s parameters, fixed as RFC 9276 asks',
  ),
  DnssecRequest: fromZod(DnssecBody, 'DNSSEC on (a new KSK and ZSK) or off (its keys removed)', {
    enable: true,
    algorithm: 'ECDSAP256SHA256',
  }),
  EmptyRequest: fromZod(EmptyBody, 'Nothing: it takes no parameters'),
  RotateRequest: fromZod(RotateBody, 'No body or {}: a ZSK rollover; key_type KSK: a KSK rollover', {
    key_type: 'KSK',
  }),
  DsSeenRequest: fromZod(DsSeenBody, "Optional: the new KSK's key tag"),
  DnssecRollover: object(
    {
      success: { type: 'boolean' },
      message: { type: 'string', description: 'What happens when, in words' },
      old_key_id: { type: 'string', format: 'uuid', description: 'The key being replaced' },
      new_key_id: { type: 'string', format: 'uuid', description: 'The new key, published now' },
      rollover_completion_date: {
        ...timestamp,
        description:
          "When the old key is removed (ISO 8601 UTC); a KSK's waits for the parent's DS: the earliest it can be",
      },
    },
    'A rollover started: ZSK by pre-publication, KSK by double-KSK',
  ),
  RolloverProgress: object(
    {
      key_type: { type: 'string', enum: ['KSK', 'ZSK'] },
      step: {
        type: 'string',
        enum: ['published', 'ready', 'retiring'],
        description:
          "published: the new key is in the DNSKEY RRset; ready (KSK): its CDS/CDNSKEY are published, the parent's DS " +
          'is waited for; retiring: the old key leaves at completes_at',
      },
      started_at: timestamp,
      old_key_id: { type: 'string', format: 'uuid' },
      new_key_id: { type: 'string', format: 'uuid' },
      completes_at: { ...timestamp, type: ['string', 'null'], description: "null: it waits for the parent's DS" },
      steps: {
        type: 'array',
        items: object({
          step: { type: 'string', enum: ['published', 'ready', 'ds-seen', 'active', 'done'] },
          at: { ...timestamp, type: ['string', 'null'], description: "null: it waits for the parent's DS" },
          done: { type: 'boolean' },
        }),
      },
    },
    'A rollover in progress, each step with its date',
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
  SecondaryZone: object(
    {
      name: { type: 'string' },
      primary: { type: 'string', description: 'address:port (an IPv6 address in brackets)' },
      tsig_key: { type: ['string', 'null'], description: 'The TSIG key transfers are signed with' },
      origin: {
        type: 'string',
        enum: ['api', 'configuration'],
        description: 'api: added here (every replica serves it); configuration: DNS_SECONDARY_ZONES',
      },
      created_at: { ...timestamp, type: ['string', 'null'], description: 'Null for one of the configuration' },
      serial: { type: ['integer', 'null'], description: 'The serial served; null: none transferred yet' },
      refreshed_at: { ...timestamp, type: ['string', 'null'], description: 'When the copy was last known current' },
      expired: { type: 'boolean', description: 'Answered with SERVFAIL: never transferred, or past its expire time' },
      error: { type: ['string', 'null'], description: 'Why the last refresh failed, or why it is not served here' },
      error_at: { ...timestamp, type: ['string', 'null'] },
    },
    'A zone served as a secondary of another server; the transfer fields as the answering server sees them',
  ),
  SecondaryZoneList: object({ secondary_zones: { type: 'array', items: ref('SecondaryZone') } }),
  CreateSecondaryZoneRequest: fromZod(CreateSecondaryZoneBody, 'A zone to serve as a secondary of `primary`', {
    name: 'example.org',
    primary: '192.0.2.1:53',
    tsig_key: null,
  }),
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

export const responses: Record<string, Json> = {
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
    'Not in this state: DNSSEC already on (enable) or off (disable, rotate), a rollover of that kind in progress ' +
      '(disable, rotate; the message says what it waits for), or no KSK rollover waiting for the DS (ds-seen)',
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
  Busy: errorResponse(
    'Too many whole-zone reads at once: the slots (DNS_API_WHOLE_ZONE_READS) and their queue ' +
      '(DNS_API_WHOLE_ZONE_QUEUE) are full, and Retry-After says when to try again (or read a page at a time with ' +
      'limit); or, without Retry-After, the store or a subgraph is not reachable',
    {
      'Retry-After': {
        required: false,
        description: 'Seconds to wait (when the whole-zone reads are full)',
        schema: { type: 'string', pattern: '^\\d+$' },
      },
    },
  ),
  Timeout: errorResponse(
    'A subgraph did not answer in time. For a write the outcome is unknown (the message says so): the change may ' +
      'still be applied, so read the zone or record back before retrying',
  ),
};

export const etagHeader = { ETag: { required: true, description: 'Pass as If-Match', schema: { type: 'string' } } };

export const ok = (status: string, description: string, schema: string, headers?: Json): Record<string, Json> => ({
  [status]: {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: ref(schema) } },
  },
});

/** What every operation answered through the graph may also say. */
export const serverErrors = { 500: response('InternalError'), 503: response('Unavailable'), 504: response('Timeout') };
/** What a whole-zone read may also say: its 503 may be a refusal for being one too many (with Retry-After). */
export const wholeZoneErrors = { ...serverErrors, 503: response('Busy') };
export const authErrors = { 401: response('Unauthorized') };
export const bodyErrors = {
  400: response('BadRequest'),
  413: response('PayloadTooLarge'),
  415: response('UnsupportedMediaType'),
  422: response('Unprocessable'),
};

export const param = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });
export const jsonBody = (schema: string): Json => ({
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

export interface PathItem {
  parameters?: Json[];
  get?: Operation;
  put?: Operation;
  post?: Operation;
  delete?: Operation;
}
