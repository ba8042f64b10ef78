/** A parameter of an action as the help page lists it. */
export interface ActionParameter {
  name: string;
  type: 'String' | 'Number' | 'Boolean';
  description: string;
}

/** One action of `/api.php`: what the help page says of it and what the dispatcher enforces. */
export interface ActionSpec {
  name: string;
  short: string;
  long: string;
  requiresLogin: boolean;
  postOnly: boolean;
  /** Changes records or ends the session: the session cookie alone carries it only as a POST from the tool's origin. */
  changes: boolean;
  required: readonly ActionParameter[];
  optional: readonly ActionParameter[];
  example: string;
}

const p = (name: string, type: ActionParameter['type'], description: string): ActionParameter => ({
  name,
  type,
  description,
});
const ZONE = p('zone', 'String', 'Zone name; without it the zone is the longest configured zone suffix of record');
const PTR = p('ptr', 'Boolean', 'Also change the PTR record of an A or AAAA record (true, t or a non-zero number)');
const COMMENT = p('comment', 'String', 'Comment for the audit log');

/** Every action, in the order of the original help page (docs/dns-tool.md, "Transport"). */
export const ACTIONS: readonly ActionSpec[] = [
  {
    name: 'is_logged',
    short: 'Tells whether you are logged in',
    long: 'Returns is_logged, and for a logged-in session the user and the roles. A posted token logs in on the fly.',
    requiresLogin: false,
    postOnly: false,
    changes: false,
    required: [],
    optional: [],
    example: '/api.php?action=is_logged',
  },
  {
    name: 'login',
    short: 'Logs in with a user name and a password',
    long: 'Works where file or directory login is configured. Returns a session id: send it as Authorization: Bearer <id> or keep the cookie.',
    requiresLogin: false,
    postOnly: true,
    changes: false,
    required: [p('loginUsername', 'String', 'User name'), p('loginPassword', 'String', 'Password')],
    optional: [],
    example: '/api.php (POST action=login&loginUsername=alice&loginPassword=…)',
  },
  {
    name: 'logout',
    short: 'Ends your session',
    long: 'The session id no longer works afterwards.',
    requiresLogin: true,
    postOnly: false,
    changes: true,
    required: [],
    optional: [],
    example: '/api.php?action=logout',
  },
  {
    name: 'login_token',
    short: 'Logs in with an API token',
    long: 'Tokens are shared secrets from the configuration; a token USER_SECRET is logged as USER.',
    requiresLogin: false,
    postOnly: true,
    changes: false,
    required: [p('token', 'String', 'API token')],
    optional: [],
    example: '/api.php (POST action=login_token&token=…)',
  },
  {
    name: 'list_zones',
    short: 'Lists the zones you may read',
    long: 'An object keyed by zone name with its update and transfer servers, notes and read-only flag.',
    requiresLogin: true,
    postOnly: false,
    changes: false,
    required: [],
    optional: [],
    example: '/api.php?action=list_zones',
  },
  {
    name: 'list_records',
    short: 'Lists every record of a zone',
    long:
      'Rows [name, ttl, class, type, data] as a zone transfer gives them, SOA first and last. A zone you may not ' +
      'read is a "Permission denied" error, as for get_record.',
    requiresLogin: true,
    postOnly: false,
    changes: false,
    required: [p('zone', 'String', 'Zone name')],
    optional: [],
    example: '/api.php?action=list_records&zone=example.test',
  },
  {
    name: 'create_record',
    short: 'Creates a record',
    long: 'Sends one dynamic update adding the record to the zone.',
    requiresLogin: true,
    postOnly: false,
    changes: true,
    required: [
      p('record', 'String', 'Record name: an FQDN, or relative to zone'),
      p('ttl', 'Number', 'Time to live in seconds'),
      p('type', 'String', 'Record type, for example A'),
      p('value', 'String', 'Record data'),
    ],
    optional: [ZONE, PTR, COMMENT],
    example: '/api.php?action=create_record&record=www.example.test&ttl=3600&type=A&value=192.0.2.1',
  },
  {
    name: 'delete_record',
    short: 'Deletes a record',
    long: 'With value, that record; without it, every record of that name and type.',
    requiresLogin: true,
    postOnly: false,
    changes: true,
    required: [p('record', 'String', 'Record name: an FQDN, or relative to zone'), p('type', 'String', 'Record type')],
    optional: [p('value', 'String', 'Record data'), p('ttl', 'Number', 'Ignored'), ZONE, PTR, COMMENT],
    example: '/api.php?action=delete_record&record=www.example.test&type=A&value=192.0.2.1',
  },
  {
    name: 'replace_record',
    short: 'Replaces a record in one transaction',
    long: 'One dynamic update deletes the old record and adds the new one: there is no moment without a record. Renaming works inside one zone.',
    requiresLogin: true,
    postOnly: false,
    changes: true,
    required: [
      p('record', 'String', 'Record name: an FQDN, or relative to zone'),
      p('type', 'String', 'Record type'),
      p('ttl', 'Number', 'Time to live of the new record'),
      p('new_value', 'String', 'New record data'),
    ],
    optional: [
      p('value', 'String', 'Old record data (without it the whole set of that type is replaced)'),
      p('new_record', 'String', 'New record name (default: record)'),
      p('new_type', 'String', 'New record type (default: type)'),
      ZONE,
      PTR,
      COMMENT,
    ],
    example:
      '/api.php?action=replace_record&record=www.example.test&type=A&ttl=3600&value=192.0.2.1&new_value=192.0.2.2',
  },
  {
    name: 'get_zone_for_fqdn',
    short: 'Finds the zone of a name',
    long: 'The longest configured zone that the name belongs to.',
    requiresLogin: false,
    postOnly: false,
    changes: false,
    required: [p('fqdn', 'String', 'Fully qualified name')],
    optional: [],
    example: '/api.php?action=get_zone_for_fqdn&fqdn=www.example.test',
  },
  {
    name: 'get_record',
    short: 'Reads the records of a name and type',
    long: 'A DNS query to the zone’s transfer server; CNAME chains give several rows, nothing found gives [].',
    requiresLogin: true,
    postOnly: false,
    changes: false,
    required: [p('record', 'String', 'Record name: an FQDN, or relative to zone')],
    optional: [p('type', 'String', 'Record type (default A)'), ZONE],
    example: '/api.php?action=get_record&record=www.example.test&type=A',
  },
  {
    name: 'get_version',
    short: 'Tells the version of the tool',
    long: 'Returns the version string.',
    requiresLogin: false,
    postOnly: false,
    changes: false,
    required: [],
    optional: [],
    example: '/api.php?action=get_version',
  },
];

export function actionSpec(name: string): ActionSpec | undefined {
  return ACTIONS.find((a) => a.name === name);
}
