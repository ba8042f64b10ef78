/** Driver errors sorted into kinds. */
import { isConnectionError, isRetryable, sqlFailure } from './errors';

const withCode = (code: string, message = `error ${code}`) => Object.assign(new Error(message), { code });

test.each([
  ['ECONNREFUSED', 'unavailable'],
  ['EAI_AGAIN', 'unavailable'],
  ['08006', 'unavailable'],
  ['57P01', 'unavailable'],
  ['53300', 'unavailable'],
  ['28P01', 'unavailable'],
  ['3D000', 'unavailable'],
  ['40001', 'retryable'],
  ['40P01', 'retryable'],
  ['SQLITE_BUSY', 'busy'],
  ['SQLITE_BUSY_SNAPSHOT', 'busy'],
  ['55P03', 'busy'], // lock_not_available: a lock_timeout ran out
  ['SQLITE_LOCKED', 'busy'],
  ['23505', 'unique'],
  ['SQLITE_CONSTRAINT_UNIQUE', 'unique'],
  ['SQLITE_CONSTRAINT_PRIMARYKEY', 'unique'],
  ['23503', 'foreign-key'],
  ['SQLITE_CONSTRAINT_FOREIGNKEY', 'foreign-key'],
])('%s is %s', (code, kind) => {
  expect(sqlFailure(withCode(code, 'the driver says'))).toEqual({ kind, message: 'the driver says' });
});

test('other errors have no kind', () => {
  expect(sqlFailure(withCode('23514'))).toBeUndefined(); // check constraint
  expect(sqlFailure(withCode('SQLITE_CONSTRAINT_CHECK'))).toBeUndefined();
  expect(sqlFailure(new Error('a bug'))).toBeUndefined();
  expect(sqlFailure('text')).toBeUndefined();
  expect(sqlFailure(null)).toBeUndefined();
});

test('connection errors without a code are known by their message', () => {
  expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
  expect(isConnectionError(new Error('timeout exceeded when trying to connect'))).toBe(true);
  expect(isConnectionError(new Error('syntax error'))).toBe(false);
  expect(isRetryable(withCode('40001'))).toBe(true);
  expect(isRetryable(withCode('23505'))).toBe(false);
});
