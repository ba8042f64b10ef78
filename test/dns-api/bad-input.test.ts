import { call, gql, startDnsApiSystem, type DnsApiSystem } from './api';

/**
 * Every validation rule of the DNS API, one case each: the bad value is sent and both the status and the body
 * (`{error, errors?: [{field, message}]}`, the field named) are checked. Nothing bad is ever written halfway.
 */
let api: DnsApiSystem;
let recordId: string;
let cnameId: string;
const ZONE = 'bad.example.test';
const NO_ID = '00000000-0000-4000-8000-000000000000';
const OTHER = 'other.example.test';
/** The longest zone name the default SOA names leave room for: hostmaster.<zone> in 253 characters. */
const LONGEST_ZONE_NAME = `${`${'z'.repeat(62)}.`.repeat(3)}${'z'.repeat(48)}.test`;
let foreignId: string;

beforeAll(async () => {
  api = await startDnsApiSystem({ DNS_PORT: '0', DNS_API_MAX_BATCH: '5', MAX_BODY_BYTES: '65536' });
  const token = api.adminToken;
  await call(api.gateway, 'POST', '/zones', { token, body: { name: ZONE } });
  const rec = await call<{ id: string }>(api.gateway, 'POST', `/zones/${ZONE}/records`, {
    token,
    body: { name: 'www', type: 'A', value: '192.0.2.1' },
  });
  recordId = rec.body.id;
  const cname = await call<{ id: string }>(api.gateway, 'POST', `/zones/${ZONE}/records`, {
    token,
    body: { name: 'cn', type: 'CNAME', value: 'www' },
  });
  cnameId = cname.body.id;
  // A record of another zone: its id must not reach it through this zone's paths.
  await call(api.gateway, 'POST', '/zones', { token, body: { name: OTHER } });
  const foreign = await call<{ id: string }>(api.gateway, 'POST', `/zones/${OTHER}/records`, {
    token,
    body: { name: 'www', type: 'A', value: '192.0.2.77' },
  });
  foreignId = foreign.body.id;
  await call(api.gateway, 'POST', '/users', {
    token,
    body: { username: 'taken', email: 'taken@example.test', password: 'taken-password', role: 'viewer' },
  });
}, 60_000);
afterAll(() => api?.close());

interface Case {
  name: string;
  method: string;
  path: string | (() => string);
  /** The body, or a function giving it once the fixtures exist. */
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  /** What `error` says (a part of it). */
  error: string | RegExp;
  /** The fields `errors` names, in order; absent: no `errors` in the body. */
  fields?: string[];
}

const records = `/zones/${ZONE}/records`;
const rec = (type: string, value: string, name = 'v'): Partial<Case> => ({
  method: 'POST',
  path: records,
  body: { name, type, value },
});

const CASES: Case[] = [
  // Bodies that are not what JSON endpoints take
  { name: 'malformed JSON', method: 'POST', path: '/zones', body: '{"name": ', status: 400, error: 'malformed JSON' },
  { name: 'an empty JSON body', method: 'POST', path: '/zones', body: '', status: 400, error: 'empty' },
  { name: 'a JSON array', method: 'POST', path: '/zones', body: '[1]', status: 400, error: 'must be a JSON object' },
  {
    name: 'a JSON string',
    method: 'POST',
    path: '/zones',
    body: '"zone"',
    status: 400,
    error: 'must be a JSON object',
  },
  {
    name: 'a form body',
    method: 'POST',
    path: '/zones',
    body: 'name=x.test',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
    error: 'application/json',
  },
  {
    name: 'a JSON body with a __proto__ key (valid JSON, a forbidden key)',
    method: 'POST',
    path: '/zones',
    body: '{"name": "proto.test", "__proto__": {"admin": true}}',
    status: 400,
    error: 'the request body has the key "__proto__", which is not allowed (a forbidden key)',
  },
  {
    name: 'a __proto__ key deep in a batch',
    method: 'POST',
    path: `${records}/batch`,
    body: '{"operations": [{"operation": "delete", "id": "x", "__proto__": {}}]}',
    status: 400,
    error: 'the key "__proto__", which is not allowed',
  },
  {
    name: 'a JSON body with constructor.prototype',
    method: 'PUT',
    path: `/zones/${ZONE}`,
    body: '{"refresh": 60, "constructor": {"prototype": {"admin": true}}}',
    status: 400,
    error: 'the key "constructor" with "prototype", which is not allowed (a forbidden key)',
  },
  {
    name: 'a text/plain body (JSON in it or not)',
    method: 'POST',
    path: '/zones',
    body: '{"name": "plain.test"}',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    error: 'unsupported content-type: send the body as application/json',
  },
  {
    name: 'a text/plain body on a record update',
    method: 'PUT',
    path: () => `${records}/${recordId}`,
    body: '{"ttl": 60}',
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    status: 415,
    error: 'unsupported content-type: send the body as application/json',
  },
  {
    name: 'an XML body',
    method: 'POST',
    path: '/auth/login',
    body: '<login/>',
    headers: { 'content-type': 'application/xml' },
    status: 415,
    error: 'unsupported content-type',
  },
  {
    name: 'application/json with a charset is JSON (the body is read: its unknown field named)',
    method: 'POST',
    path: '/zones',
    body: '{"name": "charset.test", "serial": 1}',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    status: 422,
    error: 'unknown field "serial"',
    fields: ['serial'],
  },
  {
    name: 'a +json type is JSON (the body is read: its bad value named)',
    method: 'PUT',
    path: `/zones/${ZONE}`,
    body: '{"refresh": -1}',
    headers: { 'content-type': 'application/merge-patch+json' },
    status: 422,
    error: 'refresh must be at least 0',
    fields: ['refresh'],
  },
  {
    name: 'no body at all where one is needed',
    method: 'POST',
    path: '/users',
    status: 400,
    error: 'the request body is empty',
  },
  {
    name: 'a text/plain body over the size limit (the limit first)',
    method: 'POST',
    path: '/zones',
    body: 'x'.repeat(70_000),
    headers: { 'content-type': 'text/plain' },
    status: 413,
    error: 'exceeds the limit of 65536 bytes',
  },
  {
    name: 'a body over the size limit',
    method: 'POST',
    path: '/zones',
    body: { name: 'big.test', zone_file: 'x'.repeat(70_000) },
    status: 413,
    error: 'exceeds the limit of 65536 bytes',
  },
  // Wrong types, unknown and missing fields
  {
    name: 'zone name of the wrong type',
    method: 'POST',
    path: '/zones',
    body: { name: 5 },
    status: 422,
    error: 'name must be a string',
    fields: ['name'],
  },
  {
    name: 'an integer field as a string',
    method: 'POST',
    path: '/zones',
    body: { name: 'a.test', refresh: '10' },
    status: 422,
    error: 'refresh must be an integer',
    fields: ['refresh'],
  },
  {
    name: 'an integer field with a fraction',
    method: 'POST',
    path: '/zones',
    body: { name: 'a.test', retry: 1.5 },
    status: 422,
    error: 'retry must be an integer',
    fields: ['retry'],
  },
  {
    name: 'a negative zone setting',
    method: 'POST',
    path: '/zones',
    body: { name: 'a.test', expire: -1 },
    status: 422,
    error: 'expire must be at least 0',
    fields: ['expire'],
  },
  {
    name: 'a zone setting over 2^31-1',
    method: 'PUT',
    path: `/zones/${ZONE}`,
    body: { default_ttl: 2 ** 31 },
    status: 422,
    error: 'default_ttl must be at most 2147483647',
    fields: ['default_ttl'],
  },
  {
    name: 'an unknown field',
    method: 'POST',
    path: '/zones',
    body: { name: 'a.test', serial: 1 },
    status: 422,
    error: 'unknown field "serial"',
    fields: ['serial'],
  },
  {
    name: 'no zone name',
    method: 'POST',
    path: '/zones',
    body: {},
    status: 422,
    error: 'name is required',
    fields: ['name'],
  },
  {
    name: 'a record without name and value',
    method: 'POST',
    path: records,
    body: { type: 'A' },
    status: 422,
    error: 'name is required (and 1 more)',
    fields: ['name', 'value'],
  },
  {
    name: 'a record name as an object',
    method: 'POST',
    path: records,
    body: { name: { x: 1 }, type: 'A', value: '192.0.2.1' },
    status: 422,
    error: 'name must be a string',
    fields: ['name'],
  },
  {
    name: 'a record update naming a field that cannot change',
    method: 'PUT',
    path: () => `${records}/${recordId}`,
    body: { type: 'AAAA' },
    status: 422,
    error: 'unknown field "type"',
    fields: ['type'],
  },
  {
    name: 'a record update with nothing to change',
    method: 'PUT',
    path: () => `${records}/${recordId}`,
    body: {},
    status: 422,
    error: 'give at least one',
    fields: ['value'],
  },
  {
    name: 'a zone update with nothing to change',
    method: 'PUT',
    path: `/zones/${ZONE}`,
    body: {},
    status: 422,
    error: 'nothing to change',
    fields: ['input'],
  },
  {
    name: 'login without a password',
    method: 'POST',
    path: '/auth/login',
    body: { username: 'admin' },
    status: 422,
    error: 'password is required',
    fields: ['password'],
  },
  // Zone names
  {
    name: 'a zone name with an empty label',
    method: 'POST',
    path: '/zones',
    body: { name: 'bad..test' },
    status: 422,
    error: 'name is not a valid domain name',
    fields: ['name'],
  },
  {
    name: 'a zone name with a character names may not hold',
    method: 'POST',
    path: '/zones',
    body: { name: 'bad!.test' },
    status: 422,
    error: 'name is not a valid domain name',
    fields: ['name'],
  },
  {
    name: 'a zone name in upper case (not normalised)',
    method: 'POST',
    path: '/zones',
    body: { name: 'Upper.TEST' },
    status: 422,
    error: 'name must be lower case, in ASCII (use "upper.test")',
    fields: ['name'],
  },
  {
    name: 'a zone name of 254 characters (one more than DNS allows)',
    method: 'POST',
    path: '/zones',
    body: { name: `${'a'.repeat(61)}.`.repeat(4) + 'a.test' },
    status: 422,
    error: 'name',
    fields: ['name'],
  },
  {
    name: 'a zone name of 300 characters',
    method: 'POST',
    path: '/zones',
    body: { name: `${'a'.repeat(59)}.`.repeat(5) },
    status: 422,
    error: /name is longer than 25[34] characters/,
    fields: ['name'],
  },
  {
    name: 'a zone name with a 64-octet label',
    method: 'POST',
    path: '/zones',
    body: { name: `${'a'.repeat(64)}.test` },
    status: 422,
    error: 'at most 63 are allowed',
    fields: ['name'],
  },
  {
    name: 'the root zone',
    method: 'POST',
    path: '/zones',
    body: { name: '.' },
    status: 422,
    error: 'name',
    fields: ['name'],
  },
  {
    name: 'a zone name that is a wildcard (never served)',
    method: 'POST',
    path: '/zones',
    body: { name: '*.test' },
    status: 422,
    error: 'name cannot be used: a zone name must not have a "*" label',
    fields: ['name'],
  },
  {
    name: 'a zone name with a wildcard label in it',
    method: 'POST',
    path: '/zones',
    body: { name: 'a.*.test' },
    status: 422,
    error: 'name is not a valid domain name',
    fields: ['name'],
  },
  {
    name: 'a zone name of 253 characters (no room left for the SOA names hostmaster.<zone> and ns1.<zone>)',
    method: 'POST',
    path: '/zones',
    body: { name: `${`${'a'.repeat(63)}.`.repeat(3)}${'b'.repeat(56)}.test` },
    status: 422,
    error: 'the zone name may have at most 242 characters',
    fields: ['name'],
  },
  {
    name: 'a zone name one character longer than hostmaster.<zone> leaves room for',
    method: 'POST',
    path: '/zones',
    body: { name: `a${LONGEST_ZONE_NAME}` },
    status: 422,
    error: "the SOA's mailbox hostmaster.<zone> would be 254 octets long",
    fields: ['name'],
  },
  {
    name: 'an admin_email whose SOA mailbox would be over 255 octets',
    method: 'POST',
    path: '/zones',
    body: { name: 'mailbox.test', admin_email: `${'x'.repeat(60)}@${`${'d'.repeat(62)}.`.repeat(3)}test` },
    status: 422,
    error: 'admin_email is not a valid e-mail address',
    fields: ['admin_email'],
  },
  {
    name: 'an admin_email in a long zone that leaves its mailbox no room',
    method: 'POST',
    path: '/zones',
    body: { name: LONGEST_ZONE_NAME, admin_email: `${'x'.repeat(20)}@${LONGEST_ZONE_NAME}` },
    status: 422,
    error: 'admin_email',
    fields: ['admin_email'],
  },
  {
    name: 'a zone_file imported under a wildcard zone name',
    method: 'POST',
    path: '/zones',
    body: { name: '*.test', zone_file: '$TTL 60\n@ SOA ns1 hostmaster 1 2 3 4 5\n@ NS ns1\n' },
    status: 422,
    error: 'must not have a "*" label',
    fields: ['name'],
  },
  {
    name: 'a zone_file whose SOA names do not fit under a long zone name',
    method: 'POST',
    path: '/zones',
    body: { name: `a${LONGEST_ZONE_NAME}`, zone_file: '$TTL 60\n@ SOA ns1 hostmaster 1 2 3 4 5\n@ NS ns1\n' },
    status: 422,
    error: 'zone_file could not be read',
    fields: ['zone_file'],
  },
  {
    name: 'a zone_file whose SOA mailbox is no e-mail address (a single label)',
    method: 'POST',
    path: '/zones',
    body: { name: 'rootmail.test', zone_file: '$TTL 60\n@ SOA ns1 hostmaster. 1 2 3 4 5\n@ NS ns1\n' },
    status: 422,
    error: 'zone_file could not be read: Invalid name "hostmaster": the SOA\'s mailbox',
    fields: ['zone_file'],
  },
  {
    name: 'an admin_email that is no address',
    method: 'POST',
    path: '/zones',
    body: { name: 'mail.test', admin_email: 'not-an-email' },
    status: 422,
    error: 'admin_email is not a valid e-mail address',
    fields: ['admin_email'],
  },
  {
    name: 'a zone_file that is no master file',
    method: 'POST',
    path: '/zones',
    body: { name: 'file.test', zone_file: 'garbage here' },
    status: 422,
    error: 'zone_file could not be read: line 1',
    fields: ['zone_file'],
  },
  // Record names and values per type
  {
    name: 'a record name outside the zone',
    ...rec('A', '192.0.2.1', 'www.other.test.'),
    status: 422,
    error: 'is not inside zone',
    fields: ['name'],
  } as Case,
  { name: 'A: not an IPv4 address', ...rec('A', '300.1.1.1'), status: 422, error: 'IPv4', fields: ['value'] } as Case,
  {
    name: 'A: an IPv6 address',
    ...rec('A', '2001:db8::1'),
    status: 422,
    error: 'belongs in an AAAA record',
    fields: ['value'],
  } as Case,
  {
    name: 'AAAA: an IPv4 address',
    ...rec('AAAA', '192.0.2.1'),
    status: 422,
    error: 'belongs in an A record',
    fields: ['value'],
  } as Case,
  {
    name: 'MX: no preference',
    ...rec('MX', 'mail'),
    status: 422,
    error: 'MX value must be',
    fields: ['value'],
  } as Case,
  {
    name: 'MX: preference over 65535',
    ...rec('MX', '70000 mail'),
    status: 422,
    error: 'MX preference must be an integer from 0 to 65535',
    fields: ['value'],
  } as Case,
  {
    name: 'TXT: an unterminated quote',
    ...rec('TXT', '"open'),
    status: 422,
    error: 'unterminated quoted string',
    fields: ['value'],
  } as Case,
  {
    name: 'CNAME: a target that is no name',
    ...rec('CNAME', 'bad..name'),
    status: 422,
    error: 'CNAME target',
    fields: ['value'],
  } as Case,
  {
    name: 'SRV: a field missing',
    ...rec('SRV', '1 2 sip'),
    status: 422,
    error: 'SRV value must be',
    fields: ['value'],
  } as Case,
  {
    name: 'CAA: flags over 255',
    ...rec('CAA', '256 issue "ca.example"'),
    status: 422,
    error: 'CAA flags must be an integer from 0 to 255',
    fields: ['value'],
  } as Case,
  {
    name: 'PTR: a target that is no name',
    ...rec('PTR', '!!'),
    status: 422,
    error: 'PTR target',
    fields: ['value'],
  } as Case,
  {
    name: 'an unknown record type',
    ...rec('BOGUS', 'x'),
    status: 422,
    error: 'type must be one of',
    fields: ['type'],
  } as Case,
  {
    name: 'SOA as a record',
    ...rec('SOA', 'x'),
    status: 422,
    error: "the zone's SOA comes from its settings",
    fields: ['type'],
  } as Case,
  {
    name: 'an update with a value the type refuses',
    method: 'PUT',
    path: () => `${records}/${recordId}`,
    body: { value: 'not-an-address' },
    status: 422,
    error: 'IPv4',
    fields: ['value'],
  },
  // TTL
  {
    name: 'a negative TTL',
    method: 'POST',
    path: records,
    body: { name: 't', type: 'A', value: '192.0.2.1', ttl: -1 },
    status: 422,
    error: 'ttl must be at least 0',
    fields: ['ttl'],
  },
  {
    name: 'a TTL over 2^31-1',
    method: 'POST',
    path: records,
    body: { name: 't', type: 'A', value: '192.0.2.1', ttl: 2 ** 31 },
    status: 422,
    error: 'ttl must be at most 2147483647',
    fields: ['ttl'],
  },
  {
    name: 'a TTL as a string',
    method: 'PUT',
    path: () => `${records}/${recordId}`,
    body: { ttl: '60' },
    status: 422,
    error: 'ttl must be an integer',
    fields: ['ttl'],
  },
  // Unknown ids → 404
  { name: 'an unknown zone', method: 'GET', path: '/zones/nope.test', status: 404, error: 'no zone' },
  {
    name: 'an unknown zone to update',
    method: 'PUT',
    path: '/zones/nope.test',
    body: { minimum: 5 },
    status: 404,
    error: 'no zone',
  },
  { name: 'an unknown zone to delete', method: 'DELETE', path: '/zones/nope.test', status: 404, error: 'no zone' },
  {
    name: 'records of an unknown zone',
    method: 'GET',
    path: '/zones/nope.test/records',
    status: 404,
    error: 'no zone',
  },
  {
    name: 'a record in an unknown zone',
    method: 'POST',
    path: '/zones/nope.test/records',
    body: { name: 'a', type: 'A', value: '192.0.2.1' },
    status: 404,
    error: 'no zone nope.test',
  },
  { name: 'an unknown record', method: 'GET', path: `${records}/${NO_ID}`, status: 404, error: `no record ${NO_ID}` },
  { name: 'a record id that is no UUID', method: 'GET', path: `${records}/not-an-id`, status: 404, error: 'no record' },
  {
    name: 'an unknown record to update',
    method: 'PUT',
    path: `${records}/${NO_ID}`,
    body: { ttl: 5 },
    status: 404,
    error: `no record ${NO_ID}`,
  },
  {
    name: 'an unknown record to delete',
    method: 'DELETE',
    path: `${records}/${NO_ID}`,
    status: 404,
    error: 'no record',
  },
  {
    name: "another zone's record read through this zone",
    method: 'GET',
    path: () => `${records}/${foreignId}`,
    status: 404,
    error: `in zone ${ZONE}`,
  },
  {
    name: "another zone's record changed through this zone",
    method: 'PUT',
    path: () => `${records}/${foreignId}`,
    body: { ttl: 5 },
    status: 404,
    error: `in zone ${ZONE}`,
  },
  {
    name: "another zone's record deleted through this zone",
    method: 'DELETE',
    path: () => `${records}/${foreignId}`,
    status: 404,
    error: `in zone ${ZONE}`,
  },
  {
    name: "another zone's record deleted by a batch of this zone",
    method: 'POST',
    path: `${records}/batch`,
    body: () => ({ operations: [{ operation: 'delete', id: foreignId }] }),
    status: 404,
    error: 'nothing was applied',
  },
  { name: 'an unknown user', method: 'GET', path: `/users/${NO_ID}`, status: 404, error: `no user` },
  { name: 'a user id that is no UUID', method: 'GET', path: '/users/nope', status: 404, error: 'no user' },
  {
    name: 'an unknown user to update',
    method: 'PUT',
    path: `/users/${NO_ID}`,
    body: { email: 'a@example.test' },
    status: 404,
    error: 'no user',
  },
  { name: 'an unknown user to delete', method: 'DELETE', path: `/users/${NO_ID}`, status: 404, error: 'no user' },
  { name: 'an unknown path', method: 'GET', path: '/nothing/here', status: 404, error: 'no such path' },
  // Duplicates → 409, CNAME exclusivity → 422
  {
    name: 'a duplicate zone',
    method: 'POST',
    path: '/zones',
    body: { name: ZONE },
    status: 409,
    error: 'already exists',
  },
  {
    name: 'a duplicate zone spelled with a trailing dot',
    method: 'POST',
    path: '/zones',
    body: { name: `${ZONE}.` },
    status: 409,
    error: 'already exists',
  },
  {
    name: 'a duplicate record',
    method: 'POST',
    path: records,
    body: { name: `www.${ZONE}`, type: 'A', value: '192.0.2.1' },
    status: 409,
    error: 'already exists',
  },
  {
    name: 'a duplicate user',
    method: 'POST',
    path: '/users',
    body: { username: 'taken', email: 'other@example.test', password: 'other-password', role: 'viewer' },
    status: 409,
    error: 'the username taken is already taken',
  },
  {
    name: 'a CNAME beside another type',
    ...rec('CNAME', 'target.example.net.', 'www'),
    status: 422,
    error: 'CNAME may not share its name with any other record',
    fields: ['value'],
  } as Case,
  {
    name: 'another type beside a CNAME',
    ...rec('TXT', 'hello', 'cn'),
    status: 422,
    error: 'CNAME may not share its name with any other record',
    fields: ['value'],
  } as Case,
  {
    name: 'a second CNAME at one name',
    ...rec('CNAME', 'other.example.net.', 'cn'),
    status: 422,
    error: 'only one CNAME',
    fields: ['value'],
  } as Case,
  // Users
  {
    name: 'a user with a role that does not exist',
    method: 'POST',
    path: '/users',
    body: { username: 'u1', email: 'u1@example.test', password: 'long-enough', role: 'king' },
    status: 422,
    error: 'role must be one of "admin", "operator", "viewer"',
    fields: ['role'],
  },
  {
    name: 'a user with a short password',
    method: 'POST',
    path: '/users',
    body: { username: 'u1', email: 'u1@example.test', password: 'short', role: 'viewer' },
    status: 422,
    error: 'password must be 8 to 256 characters long',
    fields: ['password'],
  },
  {
    name: 'a user name with a space',
    method: 'POST',
    path: '/users',
    body: { username: 'u 1', email: 'u1@example.test', password: 'long-enough', role: 'viewer' },
    status: 422,
    error: 'username',
    fields: ['username'],
  },
  {
    name: 'a user with an address that is no address',
    method: 'POST',
    path: '/users',
    body: { username: 'u1', email: 'nobody', password: 'long-enough', role: 'viewer' },
    status: 422,
    error: 'email',
    fields: ['email'],
  },
  {
    name: 'disabled as a string',
    method: 'PUT',
    path: `/users/${NO_ID}`,
    body: { disabled: 'yes' },
    status: 422,
    error: 'disabled must be true or false',
    fields: ['disabled'],
  },
  {
    name: 'a password change with the wrong current password',
    method: 'PUT',
    path: '/users/me/password',
    body: { current_password: 'wrong-password', new_password: 'whatever-long' },
    status: 422,
    error: 'current_password is not your password now',
    fields: ['current_password'],
  },
  {
    name: 'a password change to a short password',
    method: 'PUT',
    path: '/users/me/password',
    body: { current_password: 'admin-password-for-tests', new_password: 'short' },
    status: 422,
    error: 'new_password must be 8 to 256 characters long',
    fields: ['new_password'],
  },
  // Paging and filters
  {
    name: 'limit that is no number',
    method: 'GET',
    path: `${records}?limit=abc`,
    status: 400,
    error: 'limit must be a whole number',
  },
  {
    name: 'limit 0',
    method: 'GET',
    path: `${records}?limit=0`,
    status: 400,
    error: 'limit must be an integer from 1 to',
  },
  {
    name: 'limit over the largest page',
    method: 'GET',
    path: `${records}?limit=10001`,
    status: 400,
    error: 'from 1 to 10000',
  },
  { name: 'limit twice', method: 'GET', path: `${records}?limit=1&limit=2`, status: 400, error: 'only once' },
  {
    name: 'a cursor the API did not give out',
    method: 'GET',
    path: `${records}?limit=1&cursor=garbage`,
    status: 400,
    error: 'cursor is not a cursor this API gave out',
  },
  {
    name: 'an unknown type filter',
    method: 'GET',
    path: `${records}?type=BOGUS`,
    status: 422,
    error: 'type must be one of',
    fields: ['type'],
  },
  // Batches
  {
    name: 'a batch over the limit',
    method: 'POST',
    path: `${records}/batch`,
    body: {
      operations: Array.from({ length: 6 }, (_, i) => ({
        operation: 'create',
        name: `n${i}`,
        type: 'A',
        value: '192.0.2.9',
      })),
    },
    status: 413,
    error: 'a batch may hold at most 5 operations (got 6',
  },
  {
    name: 'an empty batch',
    method: 'POST',
    path: `${records}/batch`,
    body: { operations: [] },
    status: 422,
    error: 'at least one operation',
    fields: ['operations'],
  },
  {
    name: 'a batch operation that does not exist',
    method: 'POST',
    path: `${records}/batch`,
    body: { operations: [{ operation: 'explode' }] },
    status: 422,
    error: 'operations[0].operation must be "create", "update" or "delete"',
    fields: ['operations[0].operation'],
  },
  {
    name: 'a batch operation with a field of another kind',
    method: 'POST',
    path: `${records}/batch`,
    body: { operations: [{ operation: 'delete', id: NO_ID, value: '192.0.2.1' }] },
    status: 422,
    error: 'unknown field "value"',
    fields: ['operations[0].value'],
  },
];

describe.each([
  ['the gateway port', 'gateway'],
  ['the DNS API port', 'own'],
] as const)('on %s', (_where, which) => {
  test.each(CASES)('$name → $status', async (c) => {
    const path = typeof c.path === 'function' ? c.path() : c.path;
    const res = await call<{ error: string; errors?: Array<{ field: string; message: string }> }>(
      api[which],
      c.method,
      path,
      {
        token: api.adminToken,
        body: typeof c.body === 'function' ? (c.body as () => unknown)() : c.body,
        headers: c.headers,
      },
    );
    expect({ status: res.status, text: res.text.slice(0, 400) }).toMatchObject({ status: c.status });
    expect(typeof res.body.error).toBe('string');
    if (typeof c.error === 'string') expect(res.body.error).toContain(c.error);
    else expect(res.body.error).toMatch(c.error);
    if (c.fields) {
      expect(res.body.errors?.map((e) => e.field)).toEqual(c.fields);
      for (const e of res.body.errors ?? []) expect(e.message).toEqual(expect.any(String));
    } else {
      expect(res.body).not.toHaveProperty('errors');
    }
    expect(Object.keys(res.body).every((k) => k === 'error' || k === 'errors')).toBe(true);
  });
});

describe('nothing is written halfway', () => {
  const batchOf = (third: Record<string, unknown>) => ({
    operations: [
      { operation: 'create', name: 'half1', type: 'A', value: '192.0.2.31' },
      { operation: 'create', name: 'half2', type: 'A', value: '192.0.2.32' },
      third,
      { operation: 'create', name: 'half4', type: 'A', value: '192.0.2.34' },
    ],
  });
  const THIRDS: Array<{
    why: string;
    op: Record<string, unknown>;
    status: number;
    error: string | RegExp;
    field?: string;
  }> = [
    {
      why: 'a value the type refuses',
      op: { operation: 'create', name: 'half3', type: 'A', value: '999.1.1.1' },
      status: 422,
      error: 'operations[2].value',
      field: 'operations[2].value',
    },
    {
      why: 'a duplicate of a stored record',
      op: { operation: 'create', name: 'www', type: 'A', value: '192.0.2.1' },
      status: 409,
      error: 'operation 3 (create) failed, nothing was applied',
    },
    {
      why: 'a CNAME beside a record of the same batch',
      op: { operation: 'create', name: 'half1', type: 'CNAME', value: 'www' },
      status: 422,
      error: 'operation 3 (create) failed, nothing was applied',
      field: 'operations[2]',
    },
    {
      why: 'the update of an unknown record',
      op: { operation: 'update', id: NO_ID, ttl: 60 },
      status: 404,
      error: /operations\[2\]|operation 3/,
    },
    {
      why: 'the delete of an unknown record',
      op: { operation: 'delete', id: NO_ID },
      status: 404,
      error: 'operation 3 (delete) failed, nothing was applied',
    },
  ];

  test.each(THIRDS)('a batch whose 3rd operation is $why: $status, the operation named, nothing applied', async (t) => {
    const before = await call<{ records: unknown[] }>(api.gateway, 'GET', records, { token: api.adminToken });
    const res = await call<{ error: string; errors?: Array<{ field: string }> }>(
      api.gateway,
      'POST',
      `${records}/batch`,
      {
        token: api.adminToken,
        body: batchOf(t.op),
      },
    );
    expect(res.status).toBe(t.status);
    if (typeof t.error === 'string') expect(res.body.error).toContain(t.error);
    else expect(res.body.error).toMatch(t.error);
    if (t.field) expect(res.body.errors?.[0]?.field).toBe(t.field);
    const after = await call<{ records: unknown[] }>(api.gateway, 'GET', records, { token: api.adminToken });
    expect(after.body.records).toEqual(before.body.records);
  });

  test('refused record writes leave the stored records as they were', async () => {
    const res = await call<{ records: Array<{ id: string; name: string; value: string }> }>(
      api.gateway,
      'GET',
      records,
      {
        token: api.adminToken,
      },
    );
    expect(res.body.records.map((r) => `${r.name} ${r.value}`).sort()).toEqual(
      [`${ZONE} ns1.${ZONE}.`, `ns1.${ZONE} 127.0.0.1`, `cn.${ZONE} www.${ZONE}.`, `www.${ZONE} 192.0.2.1`].sort(),
    );
    expect(res.body.records.find((r) => r.id === recordId)).toBeDefined();
    expect(res.body.records.find((r) => r.id === cnameId)).toBeDefined();
    const zones = await call<{ zones: Array<{ name: string }> }>(api.gateway, 'GET', '/zones', {
      token: api.adminToken,
    });
    expect(zones.body.zones.map((z) => z.name).sort()).toEqual([ZONE, OTHER].sort());
    const foreign = await call(api.gateway, 'GET', `/zones/${OTHER}/records/${foreignId}`, { token: api.adminToken });
    expect(foreign.body).toMatchObject({ id: foreignId, value: '192.0.2.77', ttl: 3600 });
  });

  test('the last enabled admin can be neither deleted nor demoted (409)', async () => {
    const me = await call<{ id: string }>(api.gateway, 'GET', '/users/me', { token: api.adminToken });
    const del = await call(api.gateway, 'DELETE', `/users/${me.body.id}`, { token: api.adminToken });
    expect(del.status).toBe(409);
    expect(del.body).toEqual({ error: expect.stringContaining('last enabled admin') as unknown });
    const demote = await call(api.gateway, 'PUT', `/users/${me.body.id}`, {
      token: api.adminToken,
      body: { role: 'viewer' },
    });
    expect(demote.status).toBe(409);
    const disable = await call(api.gateway, 'PUT', `/users/${me.body.id}`, {
      token: api.adminToken,
      body: { disabled: true },
    });
    expect(disable.status).toBe(409);
    expect((await call(api.gateway, 'GET', '/users/me', { token: api.adminToken })).body).toMatchObject({
      role: 'admin',
      disabled: false,
    });
  });
});

describe('the same rules on the GraphQL fields', () => {
  const GQL: Array<{ name: string; query: string; variables?: Record<string, unknown>; code: string; field?: string }> =
    [
      {
        name: 'a value the type refuses',
        query: `mutation { createRecord(zone: "${ZONE}", input: { name: "v", type: "A", value: "300.1.1.1" }) { id } }`,
        code: 'BAD_USER_INPUT',
        field: 'value',
      },
      {
        name: 'a name outside the zone',
        query: `mutation { createRecord(zone: "${ZONE}", input: { name: "x.other.test.", type: "A", value: "192.0.2.1" }) { id } }`,
        code: 'BAD_USER_INPUT',
        field: 'name',
      },
      {
        name: 'a zone name not in lower case',
        query: 'mutation { createZone(input: { name: "Upper.TEST" }) { name } }',
        code: 'BAD_USER_INPUT',
        field: 'name',
      },
      {
        name: 'a wildcard zone name',
        query: 'mutation { createZone(input: { name: "*.test" }) { name } }',
        code: 'BAD_USER_INPUT',
        field: 'name',
      },
      {
        name: 'a zone name that leaves the SOA names no room',
        query: `mutation { createZone(input: { name: "a${LONGEST_ZONE_NAME}" }) { name } }`,
        code: 'BAD_USER_INPUT',
        field: 'name',
      },
      {
        name: 'an admin email whose SOA mailbox would not fit',
        query: `mutation { createZone(input: { name: "${LONGEST_ZONE_NAME}", adminEmail: "${'x'.repeat(20)}@${LONGEST_ZONE_NAME}" }) { name } }`,
        code: 'BAD_USER_INPUT',
        field: 'adminEmail',
      },
      {
        name: 'a TTL out of range',
        query: `mutation { createRecord(zone: "${ZONE}", input: { name: "t", type: "A", value: "192.0.2.1", ttl: -5 }) { id } }`,
        code: 'BAD_USER_INPUT',
        field: 'ttl',
      },
      {
        name: 'a batch create without a name',
        query: `mutation { batchRecords(zone: "${ZONE}", operations: [{ operation: CREATE, type: "A", value: "192.0.2.1" }]) { success } }`,
        code: 'BAD_USER_INPUT',
        field: 'operations[0].name',
      },
      {
        name: 'a batch update without an id',
        query: `mutation { batchRecords(zone: "${ZONE}", operations: [{ operation: UPDATE, ttl: 60 }]) { success } }`,
        code: 'BAD_USER_INPUT',
        field: 'operations[0].id',
      },
      {
        name: 'a batch delete without an id',
        query: `mutation { batchRecords(zone: "${ZONE}", operations: [{ operation: DELETE }]) { success } }`,
        code: 'BAD_USER_INPUT',
        field: 'operations[0].id',
      },
      {
        name: 'a batch over the limit',
        query:
          'mutation ($ops: [BatchOperationInput!]!) { batchRecords(zone: "bad.example.test", operations: $ops) { success } }',
        variables: {
          ops: Array.from({ length: 6 }, (_, i) => ({
            operation: 'CREATE',
            name: `g${i}`,
            type: 'A',
            value: '192.0.2.1',
          })),
        },
        code: 'PAYLOAD_TOO_LARGE',
      },
      {
        name: 'a record in an unknown zone',
        query:
          'mutation { createRecord(zone: "nope.test", input: { name: "a", type: "A", value: "192.0.2.1" }) { id } }',
        code: 'NOT_FOUND',
      },
      {
        name: 'a duplicate zone',
        query: `mutation { createZone(input: { name: "${ZONE}" }) { name } }`,
        code: 'CONFLICT',
      },
      {
        name: 'a stale ifMatch',
        query: `mutation { updateZone(name: "${ZONE}", input: { minimum: 60 }, ifMatch: "\\"stale\\"") { name } }`,
        code: 'PRECONDITION_FAILED',
      },
    ];

  test.each(GQL)('$name → $code', async (c) => {
    const res = await gql(api.sys.url, c.query, c.variables ?? {}, api.adminToken);
    const error = res.body.errors?.[0];
    expect({ code: error?.extensions?.code, message: error?.message }).toMatchObject({ code: c.code });
    if (c.field) {
      expect(error?.extensions?.field).toBe(c.field);
      expect((error?.extensions?.errors as Array<{ field: string }> | undefined)?.[0]?.field).toBe(c.field);
    }
  });
});

describe('an empty body with a JSON content-type (as common clients send) where a route takes none', () => {
  test('DELETE of a record, a zone and a user: 200', async () => {
    const token = api.adminToken;
    const opts = { token, body: '' };
    const zone = await call(api.gateway, 'POST', '/zones', { token, body: { name: 'empty-delete.test' } });
    expect(zone.status).toBe(201);
    const rec = await call<{ id: string }>(api.gateway, 'POST', '/zones/empty-delete.test/records', {
      token,
      body: { name: 'a', type: 'A', value: '192.0.2.1' },
    });
    const user = await call<{ id: string }>(api.gateway, 'POST', '/users', {
      token,
      body: { username: 'empty-body', email: 'e@example.test', password: 'long-enough-1', role: 'viewer' },
    });
    const paths = [
      `/zones/empty-delete.test/records/${rec.body.id}`,
      '/zones/empty-delete.test',
      `/users/${user.body.id}`,
    ];
    for (const path of paths) {
      const res = await call(api.own, 'DELETE', path, opts);
      expect({ path, status: res.status, body: res.body }).toMatchObject({
        path,
        status: 200,
        body: { success: true },
      });
    }
  });

  test('POST dnssec/rotate with an empty JSON body reaches the rotation (409: DNSSEC is off), not a 400', async () => {
    const res = await call(api.gateway, 'POST', `/zones/${ZONE}/dnssec/rotate`, { token: api.adminToken, body: '' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: expect.stringContaining('DNSSEC') as unknown });
  });

  test('/graphql and /api.php keep their own parsers', async () => {
    const gqlText = await fetch(`${api.sys.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"query": "{ __typename }"}',
    });
    expect(gqlText.status).toBe(400);
    expect(await gqlText.text()).toContain('Cross-Site Request Forgery');
    const tool = await fetch(`${api.sys.url}/api.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=get_version',
    });
    expect(tool.status).toBe(200);
  });
});

describe('a zone stored before zone names were checked (written to the store directly)', () => {
  const LEGACY = '*.legacy.test';
  beforeAll(async () => {
    const store = api.sys.system.dns?.store;
    if (!store) throw new Error('the test system has no zone store');
    const settings = { refresh: 10800, retry: 3600, expire: 604800, minimum: 3600, defaultTtl: 3600 };
    await store.createZone(LEGACY, { ...settings, adminEmail: `hostmaster@${LEGACY}`, primaryNs: `ns1.${LEGACY}` }, [
      { name: LEGACY, type: 'NS', ttl: 3600, value: `ns1.${LEGACY}.` },
    ]);
  });

  test('its export is a 409 saying why, not a 500', async () => {
    const res = await call(api.gateway, 'GET', `/zones/${LEGACY}/export`, { token: api.adminToken });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 409,
      body: { error: expect.stringContaining(`zone ${LEGACY} cannot be exported`) as unknown },
    });
    expect(res.body).toEqual({ error: expect.stringContaining('delete it and create it anew') as unknown });
  });

  test('record adds below it are a 422 naming the field, never a 500', async () => {
    const res = await call(api.gateway, 'POST', `/zones/${LEGACY}/records`, {
      token: api.adminToken,
      body: { name: 'www', type: 'A', value: '192.0.2.1' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ errors: [{ field: 'name' }] });
  });

  test('it can be deleted', async () => {
    const res = await call(api.gateway, 'DELETE', `/zones/${LEGACY}`, { token: api.adminToken });
    expect(res.status).toBe(200);
  });
});
