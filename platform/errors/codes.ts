/**
 * The one registry of error codes (GraphQL's `extensions.code`): what each means, and the HTTP status each interface
 * answers it with. The statuses differ by interface on purpose: each follows its own contract (the DNS API answers a
 * bad value with 422, the market interface with 400, the DNS tool every failure with 400). Subgraphs raise codes from
 * here; the REST adapters read their status here and render the body in their own shape.
 */

/** The interfaces an error is answered through: /graphql, market `/v1`, `/api.php`, `/api/v1`. */
export type ErrorInterface = 'graphql' | 'market' | 'dnsTool' | 'dnsApi';

export interface ErrorCodeSpec {
  readonly meaning: string;
  /** Who raises it. */
  readonly raisedBy: string;
  /** The status per interface; an interface without one answers 500 (a code it never expects is a bug). */
  readonly status: Readonly<Partial<Record<ErrorInterface, number>>>;
}

/**
 * /graphql answers every error raised while the operation runs with 200 (the errors beside the data, as GraphQL over
 * HTTP has it); only errors that refuse the request before it runs change the status.
 */
const RAN = 200;

export const ERROR_CODES = {
  BAD_USER_INPUT: {
    meaning: 'An argument or field does not validate; `field` names it, `errors` lists every invalid field',
    raisedBy: 'subgraphs',
    status: { graphql: RAN, market: 400, dnsTool: 400, dnsApi: 422 },
  },
  BAD_REQUEST: {
    meaning: 'The request itself is malformed (a foreign cursor, a subscription sent to /graphql)',
    raisedBy: 'dns-api subgraph, gateway',
    status: { graphql: 400, market: 400, dnsApi: 400 },
  },
  UNAUTHENTICATED: {
    meaning: 'No credential, or one that is wrong, expired or revoked',
    raisedBy: 'subgraphs',
    status: { graphql: RAN, market: 401, dnsTool: 400, dnsApi: 401 },
  },
  FORBIDDEN: {
    meaning: "The caller's role or grant does not allow it",
    raisedBy: 'subgraphs',
    status: { graphql: RAN, market: 403, dnsTool: 400, dnsApi: 403 },
  },
  NOT_FOUND: {
    meaning: 'No such zone, record, user or instrument',
    raisedBy: 'subgraphs',
    status: { graphql: RAN, market: 404, dnsTool: 400, dnsApi: 404 },
  },
  CONFLICT: {
    meaning: 'It exists already, or the state does not allow it',
    raisedBy: 'subgraphs, gateway (a stream id in use)',
    status: { graphql: RAN, market: 409, dnsApi: 409 },
  },
  PRECONDITION_FAILED: {
    meaning: 'If-Match no longer matches: nothing changed',
    raisedBy: 'dns-api subgraph',
    status: { graphql: RAN, dnsApi: 412 },
  },
  PAYLOAD_TOO_LARGE: {
    meaning: 'A body, a zone file or a batch is over its limit',
    raisedBy: 'dns-api subgraph, gateway',
    status: { graphql: 413, market: 413, dnsApi: 413 },
  },
  TOO_MANY_REQUESTS: {
    meaning: 'Too many failed logins, or long operations running; `retryAfter` says the seconds to wait',
    raisedBy: 'dns-api subgraph',
    status: { graphql: RAN, dnsApi: 429 },
  },
  UPSTREAM_UNAVAILABLE: {
    meaning: 'A provider or DNS server behind a subgraph did not answer usefully',
    raisedBy: 'market and dns-tool subgraphs',
    status: { graphql: RAN, market: 502, dnsTool: 400 },
  },
  UNAVAILABLE: {
    meaning: 'The store is not reachable',
    raisedBy: 'dns-api subgraph',
    status: { graphql: RAN, dnsApi: 503 },
  },
  BUSY: {
    meaning: 'Too many whole-zone reads at once (running and queued); `retryAfter` says the seconds to wait',
    raisedBy: 'dns-api subgraph',
    status: { graphql: RAN, dnsApi: 503 },
  },
  INTERNAL_SERVER_ERROR: {
    meaning: 'A bug: the log has the details',
    raisedBy: 'anyone',
    status: { graphql: RAN },
  },
  GRAPHQL_PARSE_FAILED: {
    meaning: 'The operation is not GraphQL',
    raisedBy: 'gateway',
    status: { graphql: 400, market: 400 },
  },
  GRAPHQL_VALIDATION_FAILED: {
    meaning: 'The operation does not fit the schema, or a request limit (depth, aliases, …) refused it',
    raisedBy: 'gateway',
    status: { graphql: 400, market: 400, dnsApi: 400 },
  },
  LIMIT_EXCEEDED: {
    meaning: 'A subscription limit refused the stream; `limit` names its configuration key',
    raisedBy: 'gateway',
    status: { graphql: RAN },
  },
  SUBGRAPH_UNAVAILABLE: {
    meaning: 'A subgraph could not be reached; `serviceName` names it',
    raisedBy: 'gateway',
    status: { graphql: RAN, market: 503, dnsTool: 400, dnsApi: 503 },
  },
  SUBGRAPH_TIMEOUT: {
    meaning: 'A subgraph did not answer within subgraphTimeoutMs (a mutation may still be applied)',
    raisedBy: 'gateway',
    status: { graphql: RAN, market: 504, dnsTool: 400, dnsApi: 504 },
  },
} as const satisfies Record<string, ErrorCodeSpec>;

export type AnyErrorCode = keyof typeof ERROR_CODES;

/** The codes a subgraph raises (the rest belong to the gateway). */
export type ErrorCode = Extract<
  AnyErrorCode,
  | 'BAD_USER_INPUT'
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'TOO_MANY_REQUESTS'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UNAVAILABLE'
  | 'BUSY'
  | 'INTERNAL_SERVER_ERROR'
>;

export function isErrorCode(code: unknown): code is AnyErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** The status `iface` answers `code` with, or undefined for a code it does not expect (answered as a bug). */
export function statusOfCode(code: unknown, iface: ErrorInterface): number | undefined {
  if (!isErrorCode(code)) return undefined;
  const status: Readonly<Partial<Record<ErrorInterface, number>>> = ERROR_CODES[code].status;
  return status[iface];
}
