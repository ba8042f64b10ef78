import type { FormattedExecutionResult } from 'graphql';
import { ResponseCache } from './response-cache';

const result = (text: string): FormattedExecutionResult => ({ data: { text } });
const options = { maxEntries: 10_000, maxBytes: 100_000, maxEntryBytes: 20_000 };

test('the key depends only on declared variables, by name, whatever the order or extra keys of the request', () => {
  const names = ['ticker', 'range'];
  const a = ResponseCache.key('', 'h', 'Op', names, { ticker: 'AAPL:NASDAQ', range: 'MAX' });
  expect(
    ResponseCache.key('', 'h', 'Op', names, { range: 'MAX', ticker: 'AAPL:NASDAQ', unused: 'x'.repeat(1000) }),
  ).toBe(a);
  expect(ResponseCache.key('', 'h', 'Op', names, { ticker: 'AAPL:NASDAQ', range: '1D' })).not.toBe(a);
  // an absent variable (its default applies) differs from an explicit null
  expect(ResponseCache.key('', 'h', 'Op', names, { ticker: 'AAPL:NASDAQ' })).not.toBe(
    ResponseCache.key('', 'h', 'Op', names, { ticker: 'AAPL:NASDAQ', range: null }),
  );
  expect(ResponseCache.key('', 'h', 'Op', [], { anything: 1 })).toBe(ResponseCache.key('', 'h', 'Op', [], undefined));
  expect(ResponseCache.key('', 'h', 'Other', [], undefined)).not.toBe(ResponseCache.key('', 'h', 'Op', [], undefined));
});

test('entries are bounded in bytes: the least recently used go first, and the total stays under the bound', () => {
  const cache = new ResponseCache(options);
  for (let i = 0; i < 200; i++) cache.set(`k${i}`, result('x'.repeat(2_000)), 60);
  expect(cache.bytes).toBeLessThanOrEqual(options.maxBytes);
  expect(cache.size).toBeGreaterThan(10);
  expect(cache.size).toBeLessThan(200);
  expect(cache.get('k199')).toBeDefined();
  expect(cache.get('k0')).toBeUndefined();
});

test('a result over the per-entry bound is not cached; renderings count toward the bound', () => {
  const cache = new ResponseCache(options);
  cache.set('big', result('x'.repeat(15_000)), 60); // ~1.5 × 15 kB object + 15 kB body > 20 kB
  expect(cache.get('big')).toBeUndefined();
  cache.set('small', result('x'.repeat(1_000)), 60);
  const entry = cache.get('small');
  expect(entry).toBeDefined();
  const before = cache.bytes;
  expect(cache.derive(entry!, 'rest', () => 'y'.repeat(500))).toBe('y'.repeat(500));
  expect(cache.bytes).toBe(before + 500);
  expect(
    cache.derive(entry!, 'rest', () => {
      throw new Error('rendered twice');
    }),
  ).toBe('y'.repeat(500));
  cache.derive(entry!, 'huge', () => 'z'.repeat(30_000)); // the entry would outgrow its bound: dropped
  expect(cache.get('small')).toBeUndefined();
});

test('expired entries are not served; errors and max-age 0 are never stored', () => {
  let now = 1_000_000;
  const cache = new ResponseCache({ ...options, now: () => now });
  cache.set('a', result('a'), 10);
  cache.set('b', { data: null, errors: [{ message: 'x' }] }, 10);
  cache.set('c', result('c'), 0);
  expect(cache.get('a')).toBeDefined();
  expect(cache.get('b')).toBeUndefined();
  expect(cache.get('c')).toBeUndefined();
  now += 10_000;
  expect(cache.get('a')).toBeUndefined();
});

test('each caller has its own entries: the scope (a digest of the credential) is part of the key', () => {
  expect(ResponseCache.key('alice', 'h', 'Op', [], undefined)).not.toBe(
    ResponseCache.key('bob', 'h', 'Op', [], undefined),
  );
  expect(ResponseCache.key('', 'h', 'Op', [], undefined)).not.toBe(
    ResponseCache.key('alice', 'h', 'Op', [], undefined),
  );
});

test('active progressive-override labels are part of the key; none leaves the key as it was', () => {
  const plain = ResponseCache.key('', 'h', 'Op', ['t'], { t: 1 });
  expect(ResponseCache.key('', 'h', 'Op', ['t'], { t: 1 }, [])).toBe(plain);
  const half = ResponseCache.key('', 'h', 'Op', ['t'], { t: 1 }, ['percent(50)']);
  expect(half).not.toBe(plain);
  expect(half.startsWith(plain)).toBe(true);
  expect(ResponseCache.key('', 'h', 'Op', ['t'], { t: 1 }, ['percent(10)', 'percent(50)'])).not.toBe(half);
});
