import { prepareOperation } from '../../graph';

/**
 * The fixed GraphQL operations behind each `/api/v1` path: the REST interface is a view of the graph, so every call
 * takes the gateway's one path (limits, the caller passed on, logs, metrics).
 */
const ZONE_SUMMARY = 'name recordsCount createdAt updatedAt';
const ZONE_DETAILS = `${ZONE_SUMMARY} adminEmail refresh retry expire minimum defaultTtl nameservers dnssecEnabled etag`;
const RECORD = 'id name type value ttl createdAt updatedAt etag';
/** What a listing shows of each record: a 10 000-record zone is 10 000 × each field resolved (and each ETag hashed). */
const RECORD_SUMMARY = 'id name type value ttl';
const USER = 'id username email role disabled createdAt lastLogin';
const SIGNING_KEY = 'kid algorithm createdAt retiredAt verifiesUntil signing';
const DNSSEC_STATUS =
  'enabled keys { id algorithm keyType bits createdAt expiresAt keyTag state publishAt activateAt inactiveAt deleteAt } dsRecords { keyTag algorithm digestType digest }';

/**
 * The largest page of `Zone.records` the graph gives (the dns-api subgraph's maximum; a test holds them equal): the
 * most `?limit=` may ask for, and the page size a whole listing is walked in.
 */
export const RECORDS_PAGE_MAX = 10_000;

export const DnsApiOps = {
  login: prepareOperation(
    'RestDnsLogin',
    'mutation RestDnsLogin($u: String!, $p: String!) { login(username: $u, password: $p) { token expiresAt } }',
  ),
  jwks: prepareOperation('RestDnsJwks', 'query RestDnsJwks { dnsApiJwks { keys { kty crv x kid alg use } } }'),
  signingKeys: prepareOperation(
    'RestDnsSigningKeys',
    `query RestDnsSigningKeys { dnsApiSigningKeys { ${SIGNING_KEY} } }`,
  ),
  rotateSigningKey: prepareOperation(
    'RestDnsRotateSigningKey',
    `mutation RestDnsRotateSigningKey { rotateDnsApiSigningKey { key { ${SIGNING_KEY} } previous { ${SIGNING_KEY} } } }`,
  ),
  zones: prepareOperation('RestDnsZones', `query RestDnsZones { zones { ${ZONE_SUMMARY} } }`),
  zone: prepareOperation('RestDnsZone', `query RestDnsZone($z: String!) { zone(name: $z) { ${ZONE_DETAILS} } }`),
  createZone: prepareOperation(
    'RestDnsCreateZone',
    `mutation RestDnsCreateZone($in: CreateZoneInput!) { createZone(input: $in) { ${ZONE_DETAILS} } }`,
  ),
  updateZone: prepareOperation(
    'RestDnsUpdateZone',
    `mutation RestDnsUpdateZone($z: String!, $in: UpdateZoneInput!, $m: String) { updateZone(name: $z, input: $in, ifMatch: $m) { ${ZONE_DETAILS} } }`,
  ),
  deleteZone: prepareOperation(
    'RestDnsDeleteZone',
    'mutation RestDnsDeleteZone($z: String!, $m: String) { deleteZone(name: $z, ifMatch: $m) { success message } }',
  ),
  exportZone: prepareOperation(
    'RestDnsExportZone',
    'query RestDnsExportZone($z: String!) { zone(name: $z) { zoneFile } }',
  ),
  /** A zone's version: its ETag changes with every change of the zone (the listing cache's key). */
  zoneVersion: prepareOperation(
    'RestDnsZoneVersion',
    'query RestDnsZoneVersion($z: String!) { zone(name: $z) { etag } }',
  ),
  records: prepareOperation(
    'RestDnsRecords',
    `query RestDnsRecords($z: String!, $t: String, $l: Int, $c: String) { zone(name: $z) { records(type: $t, limit: $l, cursor: $c) { zone nextCursor records { ${RECORD_SUMMARY} } } } }`,
  ),
  /** A page of the whole listing, with the zone's version at that moment (a walk sees whether the zone changed). */
  recordPage: prepareOperation(
    'RestDnsRecordPage',
    `query RestDnsRecordPage($z: String!, $t: String, $c: String) { zone(name: $z) { etag records(type: $t, limit: ${RECORDS_PAGE_MAX}, cursor: $c) { zone nextCursor records { ${RECORD_SUMMARY} } } } }`,
  ),
  record: prepareOperation(
    'RestDnsRecord',
    `query RestDnsRecord($z: String!, $id: ID!) { zone(name: $z) { record(id: $id) { ${RECORD} } } }`,
  ),
  createRecord: prepareOperation(
    'RestDnsCreateRecord',
    `mutation RestDnsCreateRecord($z: String!, $in: CreateRecordInput!) { createRecord(zone: $z, input: $in) { ${RECORD} } }`,
  ),
  updateRecord: prepareOperation(
    'RestDnsUpdateRecord',
    `mutation RestDnsUpdateRecord($z: String!, $id: ID!, $in: UpdateRecordInput!, $m: String) { updateRecord(zone: $z, id: $id, input: $in, ifMatch: $m) { ${RECORD} } }`,
  ),
  deleteRecord: prepareOperation(
    'RestDnsDeleteRecord',
    'mutation RestDnsDeleteRecord($z: String!, $id: ID!, $m: String) { deleteRecord(zone: $z, id: $id, ifMatch: $m) { success message } }',
  ),
  batch: prepareOperation(
    'RestDnsBatch',
    'mutation RestDnsBatch($z: String!, $ops: [BatchOperationInput!]!) { batchRecords(zone: $z, operations: $ops) { success results { operation id status } } }',
  ),
  dnssec: prepareOperation(
    'RestDnsDnssec',
    `query RestDnsDnssec($z: String!) { zone(name: $z) { dnssec { ${DNSSEC_STATUS} } } }`,
  ),
  setDnssec: prepareOperation(
    'RestDnsSetDnssec',
    `mutation RestDnsSetDnssec($z: String!, $in: DnssecInput!) { setZoneDnssec(zone: $z, input: $in) { ${DNSSEC_STATUS} } }`,
  ),
  rotateDnssec: prepareOperation(
    'RestDnsRotateDnssec',
    'mutation RestDnsRotateDnssec($z: String!) { rotateZoneDnssec(zone: $z) { success message oldKeyId newKeyId rolloverCompletionDate } }',
  ),
  users: prepareOperation('RestDnsUsers', `query RestDnsUsers { users { ${USER} } }`),
  user: prepareOperation('RestDnsUser', `query RestDnsUser($id: ID!) { user(id: $id) { ${USER} } }`),
  me: prepareOperation('RestDnsMe', `query RestDnsMe { me { ${USER} } }`),
  createUser: prepareOperation(
    'RestDnsCreateUser',
    `mutation RestDnsCreateUser($in: CreateUserInput!) { createUser(input: $in) { ${USER} } }`,
  ),
  updateUser: prepareOperation(
    'RestDnsUpdateUser',
    `mutation RestDnsUpdateUser($id: ID!, $in: UpdateUserInput!) { updateUser(id: $id, input: $in) { ${USER} } }`,
  ),
  deleteUser: prepareOperation(
    'RestDnsDeleteUser',
    'mutation RestDnsDeleteUser($id: ID!) { deleteUser(id: $id) { success message } }',
  ),
  changePassword: prepareOperation(
    'RestDnsChangePassword',
    'mutation RestDnsChangePassword($c: String!, $n: String!) { changeMyPassword(currentPassword: $c, newPassword: $n) { token expiresAt } }',
  ),
};
