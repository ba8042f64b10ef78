import { prepareOperation } from '../../graph';

/** The fixed GraphQL operations behind each `/api.php` action: one path through the gateway for every call. */
const ROW = 'name ttl class type value';
const RESULT = 'success warnings';
const LOGIN = 'sessionId warnings';

export const DnsToolOps = {
  session: prepareOperation('RestToolSession', 'query RestToolSession { toolSession { loggedIn user roles } }'),
  login: prepareOperation(
    'RestToolLogin',
    `mutation RestToolLogin($u: String, $p: String) { toolLogin(username: $u, password: $p) { ${LOGIN} } }`,
  ),
  loginToken: prepareOperation(
    'RestToolLoginToken',
    `mutation RestToolLoginToken($t: String) { toolLoginToken(token: $t) { ${LOGIN} } }`,
  ),
  logout: prepareOperation('RestToolLogout', `mutation RestToolLogout { toolLogout { ${RESULT} } }`),
  zones: prepareOperation(
    'RestToolZones',
    'query RestToolZones { toolZones { name updateServer transferServer inTransfer note maintenanceNote readOnly } }',
  ),
  records: prepareOperation(
    'RestToolRecords',
    `query RestToolRecords($z: String) { toolRecords(zone: $z) { ${ROW} } }`,
  ),
  record: prepareOperation(
    'RestToolRecord',
    `query RestToolRecord($r: String!, $t: String!, $z: String) { toolRecord(record: $r, type: $t, zone: $z) { ${ROW} } }`,
  ),
  zoneForFqdn: prepareOperation(
    'RestToolZoneForFqdn',
    'query RestToolZoneForFqdn($f: String!) { toolZoneForFqdn(fqdn: $f) }',
  ),
  version: prepareOperation('RestToolVersion', 'query RestToolVersion { toolVersion }'),
  create: prepareOperation(
    'RestToolCreate',
    `mutation RestToolCreate($in: ToolRecordInput!) { toolCreateRecord(input: $in) { ${RESULT} } }`,
  ),
  delete: prepareOperation(
    'RestToolDelete',
    `mutation RestToolDelete($in: ToolRecordInput!) { toolDeleteRecord(input: $in) { ${RESULT} } }`,
  ),
  replace: prepareOperation(
    'RestToolReplace',
    `mutation RestToolReplace($in: ToolReplaceInput!) { toolReplaceRecord(input: $in) { ${RESULT} } }`,
  ),
};
