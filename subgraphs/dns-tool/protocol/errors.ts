/**
 * An error of the DNS tool, as its `/api.php` answers every error: HTTP 400 with `{"error", "message", "code"}` in
 * that order (docs/dns-tool.md, "Errors"). The strings are the original tool's, exactly: clients match them.
 */
export class ToolError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly code = -1,
    /** Login failures also carry `"result": "failure"` first. */
    readonly loginFailure = false,
    /**
     * A parameter the caller got wrong, for the graph: `BAD_USER_INPUT` naming its GraphQL field, with a message of
     * its own (the body above stays the original's for `/api.php`).
     */
    readonly badInput?: { field: string; message: string },
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export const toolErrors = {
  unknownAction: () =>
    new ToolError(
      'Unknown action',
      'This action is unknown. Please refer to help. Open api.php with no parameters to see help in HTML form.',
    ),
  postOnly: () => new ToolError('POST only', 'This call must be submitted via POST method', 403),
  notAuthenticated: () =>
    new ToolError('Not authenticated', 'This call requires authentication, but you are not logged in', 403),
  missing: (name: string) => new ToolError(`Missing parameter: ${name}`, 'This parameter is required'),
  newline: () => new ToolError('Newline not allowed', 'Parameter values must not contain newlines for safety reasons'),
  noZone: () => new ToolError('No zone', 'You provided no zone name to list records for'),
  noSuchZone: (zone: string) => new ToolError('No such zone', `No such zone: ${zone}`),
  noZoneForFqdn: () => new ToolError('No such zone', 'Zone for given fqdn was not found'),
  zoneNotConfigured: () => new ToolError('No such zone', 'This zone is not in configuration file'),
  readOnly: (zone: string) => new ToolError('Unable to write: Read-only zone', `Domain ${zone} is not writeable`),
  cannotEdit: (zone: string) => new ToolError('Permission denied', `You are not authorized to edit ${zone}`),
  cannotRead: () => new ToolError('Permission denied', "You don't have access to read data from this zone"),
  invalidType: (type: string) => new ToolError('Invalid type', `Type ${type} is not a valid DNS record type`),
  invalidTtl: () => new ToolError('Invalid ttl', 'TTL must be a number'),
  invalidHostnameChars: () => new ToolError('Invalid hostname', 'Hostname is containing invalid characters'),
  invalidHostname: (name: string) => new ToolError('Invalid hostname', `Hostname ${name} is not a valid hostname`),
  noToken: () => new ToolError('No token', 'You need to provide a token'),
  loginFailed: (reason: string) => new ToolError('Login failed', reason, 2, true),
  badToken: () => new ToolError('Login failed', 'Invalid username or password'),
  // Ours (docs/dns-tool.md): the sessions' byte bound is full and the user's own sessions cannot make room.
  sessionLimit: (maxBytes: number) =>
    new ToolError(
      'Session limit reached',
      `The tool holds as many sessions as dnsTool.maxSessionBytes (${maxBytes} bytes) allows: log in again when sessions have ended, or send an API token as Authorization: Bearer instead of logging in`,
      2,
      true,
    ),
  // Ours (docs/dns-tool.md): the session cookie alone carries no request from another origin, nor a change over GET.
  crossSite: () =>
    new ToolError(
      'Cross-site request refused',
      "The session cookie alone does not carry a request from another origin: send the session id as Authorization: Bearer <session_id>, or POST from the tool's own origin",
      403,
    ),
  cookieOverGet: () =>
    new ToolError(
      'Cross-site request refused',
      "This call changes state: with only the session cookie it must be POSTed from the tool's own origin; or send the session id as Authorization: Bearer <session_id>",
      403,
    ),
  crossSiteLogin: () =>
    new ToolError(
      'Cross-site request refused',
      "A login from another origin is refused (it would set the session cookie there): log in from the tool's own origin, or without a browser",
      403,
    ),
  dns: (message: string) => new ToolError(`ERROR: ${message}`, message),
  /**
   * A value no UPDATE can carry (an A of `300.1.2.3`), refused before anything is sent. `/api.php` says it as it said
   * when the DNS client refused it (`ERROR: update failed: <why>`, docs/dns-tool.md); the graph says BAD_USER_INPUT
   * naming the field (`value`, `newValue`) and what is allowed.
   */
  badValue: (field: string, why: string) =>
    new ToolError(`ERROR: update failed: ${why}`, `update failed: ${why}`, -1, false, {
      field,
      message: `${field}: ${why}`,
    }),
};

/**
 * What `/api.php` needs to answer a failure exactly as the original did. The subgraph puts it in a GraphQL error's
 * `extensions.tool`; the adapter renders it as it comes (nothing is rebuilt on the way).
 */
export interface ToolErrorBody {
  error: string;
  message: string;
  code: number;
  /** Login failures carry `"result": "failure"` first. */
  loginFailure: boolean;
}

export function toolErrorBody(err: ToolError): ToolErrorBody {
  return { error: err.error, message: err.message, code: err.code, loginFailure: err.loginFailure };
}

/** The `extensions.tool` of a GraphQL error, when it carries one. */
export function toolErrorBodyOf(extensions: Readonly<Record<string, unknown>> | undefined): ToolErrorBody | undefined {
  const tool = extensions?.tool as Partial<ToolErrorBody> | undefined;
  return tool && typeof tool.error === 'string' && typeof tool.message === 'string' && typeof tool.code === 'number'
    ? { error: tool.error, message: tool.message, code: tool.code, loginFailure: tool.loginFailure === true }
    : undefined;
}

/** The body's fields in the original's order: `result` (login failures only), `error`, `message`, `code`. */
export function toolErrorFields(body: ToolErrorBody): {
  result?: 'failure';
  error: string;
  message: string;
  code: number;
} {
  const fields = { error: body.error, message: body.message, code: body.code };
  return body.loginFailure ? { result: 'failure', ...fields } : fields;
}
