import { ERROR_CODES, statusOfCode, type ErrorInterface } from '.';

/** The statuses each interface answered with before the registry held them (their contracts' tests assert them). */
const EXPECTED: Record<Exclude<ErrorInterface, 'graphql' | 'dnsTool'>, Record<string, number>> = {
  market: {
    BAD_USER_INPUT: 400,
    GRAPHQL_VALIDATION_FAILED: 400,
    GRAPHQL_PARSE_FAILED: 400,
    BAD_REQUEST: 400,
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    CONFLICT: 409,
    PAYLOAD_TOO_LARGE: 413,
    UPSTREAM_UNAVAILABLE: 502,
    SUBGRAPH_UNAVAILABLE: 503,
    SUBGRAPH_TIMEOUT: 504,
  },
  dnsApi: {
    BAD_REQUEST: 400,
    GRAPHQL_VALIDATION_FAILED: 400,
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    CONFLICT: 409,
    PRECONDITION_FAILED: 412,
    PAYLOAD_TOO_LARGE: 413,
    BAD_USER_INPUT: 422,
    TOO_MANY_REQUESTS: 429,
    UNAVAILABLE: 503,
    BUSY: 503,
    SUBGRAPH_UNAVAILABLE: 503,
    SUBGRAPH_TIMEOUT: 504,
  },
};

test.each(Object.entries(EXPECTED))('%s answers exactly its own codes, with its own statuses', (iface, table) => {
  const answered = Object.keys(ERROR_CODES).filter((c) => statusOfCode(c, iface as ErrorInterface) !== undefined);
  expect(answered.sort()).toEqual(Object.keys(table).sort());
  for (const [code, status] of Object.entries(table)) expect(statusOfCode(code, iface as ErrorInterface)).toBe(status);
});

test('/api.php answers every failure it knows with 400 (the body says more)', () => {
  for (const code of Object.keys(ERROR_CODES)) expect([undefined, 400]).toContain(statusOfCode(code, 'dnsTool'));
});

test('an unknown code has no status (answered as a bug)', () => {
  expect(statusOfCode('NOPE', 'market')).toBeUndefined();
  expect(statusOfCode(undefined, 'dnsApi')).toBeUndefined();
  expect(statusOfCode('toString', 'dnsApi')).toBeUndefined();
});
