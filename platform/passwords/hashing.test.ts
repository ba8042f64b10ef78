/** scrypt hashes: format, verification, other parameters, unreadable hashes. */
import { scryptSync } from 'node:crypto';
import { DEFAULT_SCRYPT, checkScryptParams, hashPassword, needsRehash, verifyPassword } from './hashing';

const FAST = { N: 2 ** 10, r: 8, p: 1 };

test('a new hash uses N=2^15, r=8, p=1, a 16-byte salt and a 32-byte key, and verifies', async () => {
  const started = process.hrtime.bigint();
  const hash = await hashPassword('correct horse battery staple');
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(`one scrypt hash (N=2^15, r=8, p=1) took ${ms.toFixed(0)} ms here`);
  const [scheme, n, r, p, salt = '', key = '', ...rest] = hash.split('$');
  expect({ scheme, n, r, p, rest }).toEqual({ scheme: 'scrypt', n: '32768', r: '8', p: '1', rest: [] });
  expect(Buffer.from(salt, 'base64')).toHaveLength(16);
  expect(Buffer.from(key, 'base64')).toHaveLength(32);
  // An independent computation of the same key from the encoded salt.
  const expected = scryptSync('correct horse battery staple', Buffer.from(salt, 'base64'), 32, {
    N: 32768,
    r: 8,
    p: 1,
    maxmem: 64 * 1024 * 1024,
  });
  expect(key).toBe(expected.toString('base64'));
  expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
  expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
  expect(needsRehash(hash)).toBe(false);
});

test('two hashes of one password differ (random salt)', async () => {
  const [a, b] = await Promise.all([hashPassword('same password', FAST), hashPassword('same password', FAST)]);
  expect(a).not.toBe(b);
  expect(await verifyPassword('same password', a)).toBe(true);
  expect(await verifyPassword('same password', b)).toBe(true);
});

test('a hash made with other parameters still verifies, and needs a rehash', async () => {
  for (const params of [FAST, { N: 2 ** 14, r: 8, p: 2 }, { N: 2 ** 12, r: 4, p: 1 }]) {
    const hash = await hashPassword('older parameters', params);
    expect(hash.startsWith(`scrypt$${params.N}$${params.r}$${params.p}$`)).toBe(true);
    expect(await verifyPassword('older parameters', hash)).toBe(true);
    expect(await verifyPassword('other password', hash)).toBe(false);
    expect(needsRehash(hash, DEFAULT_SCRYPT)).toBe(true);
    expect(needsRehash(hash, params)).toBe(false);
  }
});

test('a hash with a 64-byte key (made elsewhere) verifies', async () => {
  const salt = Buffer.alloc(16, 7);
  const key = scryptSync('from elsewhere', salt, 64, { N: 1024, r: 8, p: 1 });
  const hash = `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
  expect(await verifyPassword('from elsewhere', hash)).toBe(true);
  expect(await verifyPassword('from elsewhere!', hash)).toBe(false);
});

test('the password is NFC-normalised before hashing', async () => {
  const hash = await hashPassword('caf\u00e9-latte', FAST);
  expect(await verifyPassword('cafe\u0301-latte', hash)).toBe(true);
});

test.each([
  ['', 'empty'],
  ['bcrypt$2b$10$abc', 'another scheme'],
  ['scrypt$32768$8$1$c2FsdA==', 'too few parts'],
  ['scrypt$32768$8$1$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5$x', 'too many parts'],
  ['scrypt$1000$8$1$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'N not a power of two'],
  ['scrypt$2097152$8$1$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'N beyond 2^20 (minutes per check)'],
  ['scrypt$1048576$8$1$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'memory beyond 256 MiB (1 GiB)'],
  ['scrypt$1024$64$1$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'r beyond 32'],
  ['scrypt$1024$8$99$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'p beyond 16'],
  ['scrypt$1024$8$1$c2Fs$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'salt under 8 bytes'],
  ['scrypt$1024$8$1$c2FsdHNhbHQ=$a2V5', 'key under 16 bytes'],
  ['scrypt$1024$8$1$not base64!$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'salt not base64'],
  ['scrypt$01024$8$1$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5', 'leading zero'],
])('an unreadable hash (%j: %s) never verifies and needs a rehash', async (hash) => {
  expect(await verifyPassword('anything at all', hash)).toBe(false);
  expect(needsRehash(hash)).toBe(true);
});

test.each([
  [{ N: 1000, r: 8, p: 1 }, /N must be a power of two/],
  [{ N: 2 ** 21, r: 8, p: 1 }, /N must be a power of two from 2 to 1048576/],
  [{ N: 1024, r: 0, p: 1 }, /r must be an integer 1 to 32/],
  [{ N: 1024, r: 8, p: 1.5 }, /p must be an integer 1 to 16/],
  [{ N: 2 ** 18, r: 16, p: 1 }, /must not exceed 256 MiB/],
])('hashing refuses the parameters %j', async (params, message) => {
  expect(() => checkScryptParams(params)).toThrow(message);
  await expect(hashPassword('whatever password', params)).rejects.toThrow(message);
});
