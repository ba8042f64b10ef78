import { BoundedMap } from './bounded-map';

test('keeps at most max entries, forgetting the oldest written; a rewrite counts as new', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1).set('b', 2);
  map.set('a', 10); // a is now the newest
  map.set('c', 3); // b, the oldest, goes
  expect([...map.entries()]).toEqual([
    ['a', 10],
    ['c', 3],
  ]);
});

test('getOrCompute computes once per key while it is kept', () => {
  const map = new BoundedMap<number, number>(10);
  let calls = 0;
  const square = (n: number): number => (calls++, n * n);
  expect(map.getOrCompute(3, square)).toBe(9);
  expect(map.getOrCompute(3, square)).toBe(9);
  expect(calls).toBe(1);
});
