import { prepareOperation } from '../../graph';

/**
 * The fixed GraphQL operations behind each `/api/v1` path: the REST interface is a view of the graph, so every call
 * takes the gateway's one path (limits, the caller passed on, logs, metrics).
 */
export const ZONE_SUMMARY = 'name recordsCount createdAt updatedAt';
const ZONE_DETAILS = `${ZONE_SUMMARY} adminEmail refresh retry expire minimum defaultTtl nameservers dnssecEnabled etag`;
const RECORD = 'id name type value ttl createdAt updatedAt etag';
/** What a listing shows of each record: a 10 000-record zone is 10 000 × each field resolved (and each ETag hashed). */
const RECORD_SUMMARY = 'id name type value ttl';
/** A secondary zone's fields, as the REST adapter renders them. */
const SECONDARY_ZONE = 'name primary tsigKey origin createdAt serial refreshedAt expired error errorAt';
const USER = 'id username email role disabled createdAt lastLogin';
const SIGNING_KEY = 'kid algorithm createdAt retiredAt verifiesUntil signing';
export const DNSSEC_STATUS =
  'enabled keys { id algorithm keyType bits createdAt expiresAt keyTag state publishAt activateAt inactiveAt deleteAt cdsAt cdsUntil dsSeenAt } dsRecords { keyTag algorithm digestType digest } rollovers { keyType step startedAt oldKeyId newKeyId completesAt steps { step at done } } denial nsec3param { algorithm flags iterations salt optOut }';

/** A rollover just started, as the REST answer shows it. */
export const ROLLOVER = 'success message oldKeyId newKeyId rolloverCompletionDate keyType';

/**
 * The largest page of `Zone.records` the graph gives (the dns-api subgraph's maximum; a test holds them equal): the
 * most `?limit=` may ask for, and the page size a whole listing is walked in.
 */
export const RECORDS_PAGE_MAX = 10_000;

export const DnsApiOps = {
  login: prepareOperation(
    'RestDnsLogin',
    'mutation RestDnsLogin($username: String!, $password: String!) { login(username: $username, password: $password) { token expiresAt } }',
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
  zone: prepareOperation('RestDnsZone', `query RestDnsZone($zone: String!) { zone(name: $zone) { ${ZONE_DETAILS} } }`),
  createZone: prepareOperation(
    'RestDnsCreateZone',
    `mutation RestDnsCreateZone($input: CreateZoneInput!) { createZone(input: $input) { ${ZONE_DETAILS} } }`,
  ),
  updateZone: prepareOperation(
    'RestDnsUpdateZone',
    `mutation RestDnsUpdateZone($zone: String!, $input: UpdateZoneInput!, $ifMatch: String) { updateZone(name: $zone, input: $input, ifMatch: $ifMatch) { ${ZONE_DETAILS} } }`,
  ),
  deleteZone: prepareOperation(
    'RestDnsDeleteZone',
    'mutation RestDnsDeleteZone($zone: String!, $ifMatch: String) { deleteZone(name: $zone, ifMatch: $ifMatch) { success message } }',
  ),
  /** A page of the zone's master file (whole names, the largest page): an export walks them (docs/dns-api.md). */
  exportPage: prepareOperation(
    'RestDnsExportPage',
    `query RestDnsExportPage($zone: String!, $cursor: String) { zone(name: $zone) { zoneFilePage(cursor: $cursor, limit: ${RECORDS_PAGE_MAX}) { text nextCursor } } }`,
  ),
  /** A zone's name and version: its ETag changes with every change of the zone (the listing cache's key). */
  zoneVersion: prepareOperation(
    'RestDnsZoneVersion',
    'query RestDnsZoneVersion($zone: String!) { zone(name: $zone) { name etag } }',
  ),
  records: prepareOperation(
    'RestDnsRecords',
    `query RestDnsRecords($zone: String!, $type: String, $limit: Int, $cursor: String) { zone(name: $zone) { records(type: $type, limit: $limit, cursor: $cursor) { zone nextCursor records { ${RECORD_SUMMARY} } } } }`,
  ),
  /** A page of the whole listing, with the zone's version at that moment (a walk sees whether the zone changed). */
  recordPage: prepareOperation(
    'RestDnsRecordPage',
    `query RestDnsRecordPage($zone: String!, $type: String, $cursor: String) { zone(name: $zone) { etag records(type: $type, limit: ${RECORDS_PAGE_MAX}, cursor: $cursor) { zone nextCursor records { ${RECORD_SUMMARY} } } } }`,
  ),
  record: prepareOperation(
    'RestDnsRecord',
    `query RestDnsRecord($zone: String!, $id: ID!) { zone(name: $zone) { record(id: $id) { ${RECORD} } } }`,
  ),
  createRecord: prepareOperation(
    'RestDnsCreateRecord',
    `mutation RestDnsCreateRecord($zone: String!, $input: CreateRecordInput!) { createRecord(zone: $zone, input: $input) { ${RECORD} } }`,
  ),
  updateRecord: prepareOperation(
    'RestDnsUpdateRecord',
    `mutation RestDnsUpdateRecord($zone: String!, $id: ID!, $input: UpdateRecordInput!, $ifMatch: String) { updateRecord(zone: $zone, id: $id, input: $input, ifMatch: $ifMatch) { ${RECORD} } }`,
  ),
  deleteRecord: prepareOperation(
    'RestDnsDeleteRecord',
    'mutation RestDnsDeleteRecord($zone: String!, $id: ID!, $ifMatch: String) { deleteRecord(zone: $zone, id: $id, ifMatch: $ifMatch) { success message } }',
  ),
  batch: prepareOperation(
    'RestDnsBatch',
    'mutation RestDnsBatch($zone: String!, $operations: [BatchOperationInput!]!) { batchRecords(zone: $zone, operations: $operations) { success results { operation id status } } }',
  ),
  dnssec: prepareOperation(
    'RestDnsDnssec',
    `query RestDnsDnssec($zone: String!) { zone(name: $zone) { dnssec { ${DNSSEC_STATUS} } } }`,
  ),
  setDnssec: prepareOperation(
    'RestDnsSetDnssec',
    `mutation RestDnsSetDnssec($zone: String!, $input: DnssecInput!) { setZoneDnssec(zone: $zone, input: $input) { ${DNSSEC_STATUS} } }`,
  ),
  rotateDnssec: prepareOperation(
    'RestDnsRotateDnssec',
    `mutation RestDnsRotateDnssec($zone: String!, $keyType: DnssecKeyType) { rotateZoneDnssec(zone: $zone, keyType: $keyType) { ${ROLLOVER} } }`,
  ),
  dsSeen: prepareOperation(
    'RestDnsDsSeen',
    `mutation RestDnsDsSeen($zone: String!, $keyTag: Int) { confirmZoneDsSeen(zone: $zone, keyTag: $keyTag) { ${DNSSEC_STATUS} } }`,
  ),
  secondaryZones: prepareOperation(
    'RestDnsSecondaryZones',
    `query RestDnsSecondaryZones { secondaryZones { ${SECONDARY_ZONE} } }`,
  ),
  secondaryZone: prepareOperation(
    'RestDnsSecondaryZone',
    `query RestDnsSecondaryZone($name: String!) { secondaryZone(name: $name) { ${SECONDARY_ZONE} } }`,
  ),
  createSecondaryZone: prepareOperation(
    'RestDnsCreateSecondaryZone',
    `mutation RestDnsCreateSecondaryZone($input: CreateSecondaryZoneInput!) { createSecondaryZone(input: $input) { ${SECONDARY_ZONE} } }`,
  ),
  deleteSecondaryZone: prepareOperation(
    'RestDnsDeleteSecondaryZone',
    'mutation RestDnsDeleteSecondaryZone($name: String!) { deleteSecondaryZone(name: $name) { success message } }',
  ),
  users: prepareOperation('RestDnsUsers', `query RestDnsUsers { users { ${USER} } }`),
  user: prepareOperation('RestDnsUser', `query RestDnsUser($id: ID!) { user(id: $id) { ${USER} } }`),
  me: prepareOperation('RestDnsMe', `query RestDnsMe { me { ${USER} } }`),
  createUser: prepareOperation(
    'RestDnsCreateUser',
    `mutation RestDnsCreateUser($input: CreateUserInput!) { createUser(input: $input) { ${USER} } }`,
  ),
  updateUser: prepareOperation(
    'RestDnsUpdateUser',
    `mutation RestDnsUpdateUser($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER} } }`,
  ),
  deleteUser: prepareOperation(
    'RestDnsDeleteUser',
    'mutation RestDnsDeleteUser($id: ID!) { deleteUser(id: $id) { success message } }',
  ),
  changePassword: prepareOperation(
    'RestDnsChangePassword',
    'mutation RestDnsChangePassword($currentPassword: String!, $newPassword: String!) { changeMyPassword(currentPassword: $currentPassword, newPassword: $newPassword) { token expiresAt } }',
  ),
};
