import { prepareOperation } from '../../graph';

/** The fixed GraphQL operations behind each `/api.php` action: one path through the gateway for every call. */
const ROW = 'name ttl class type value';
const RESULT = 'success warnings';
const LOGIN = 'sessionId warnings';

export const DnsToolOps = {
  session: prepareOperation('RestToolSession', 'query RestToolSession { toolSession { loggedIn user roles } }'),
  login: prepareOperation(
    'RestToolLogin',
    `mutation RestToolLogin($username: String, $password: String) { toolLogin(username: $username, password: $password) { ${LOGIN} } }`,
  ),
  loginToken: prepareOperation(
    'RestToolLoginToken',
    `mutation RestToolLoginToken($token: String) { toolLoginToken(token: $token) { ${LOGIN} } }`,
  ),
  logout: prepareOperation('RestToolLogout', `mutation RestToolLogout { toolLogout { ${RESULT} } }`),
  zones: prepareOperation(
    'RestToolZones',
    'query RestToolZones { toolZones { name updateServer transferServer inTransfer note maintenanceNote readOnly } }',
  ),
  records: prepareOperation(
    'RestToolRecords',
    `query RestToolRecords($zone: String) { toolRecords(zone: $zone) { ${ROW} } }`,
  ),
  record: prepareOperation(
    'RestToolRecord',
    `query RestToolRecord($record: String!, $type: String!, $zone: String) { toolRecord(record: $record, type: $type, zone: $zone) { ${ROW} } }`,
  ),
  zoneForFqdn: prepareOperation(
    'RestToolZoneForFqdn',
    'query RestToolZoneForFqdn($fqdn: String!) { toolZoneForFqdn(fqdn: $fqdn) }',
  ),
  version: prepareOperation('RestToolVersion', 'query RestToolVersion { toolVersion }'),
  create: prepareOperation(
    'RestToolCreate',
    `mutation RestToolCreate($input: ToolRecordInput!) { toolCreateRecord(input: $input) { ${RESULT} } }`,
  ),
  delete: prepareOperation(
    'RestToolDelete',
    `mutation RestToolDelete($input: ToolRecordInput!) { toolDeleteRecord(input: $input) { ${RESULT} } }`,
  ),
  replace: prepareOperation(
    'RestToolReplace',
    `mutation RestToolReplace($input: ToolReplaceInput!) { toolReplaceRecord(input: $input) { ${RESULT} } }`,
  ),
};
