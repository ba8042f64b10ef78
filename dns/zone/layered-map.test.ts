import { LayeredMap } from './layered-map';
import { prng } from '../testing/prng';

const byKey = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const view = (m: LayeredMap<number>) => ({
  entries: [...m.entries()].sort(byKey),
  keys: [...m.keys()].sort(),
  size: m.size,
});
const plain = (m: Map<string, number>) => ({
  entries: [...m.entries()].sort(byKey),
  keys: [...m.keys()].sort(),
  size: m.size,
});

test('every version reads like a plain map with the same changes, and stays so after later versions (folds included)', () => {
  const rnd = prng(7);
  const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
  const start = new Map(keys.slice(0, 100).map((k, i) => [k, i]));
  let layered = LayeredMap.of(new Map(start));
  let reference = new Map(start);
  const versions: Array<{ map: LayeredMap<number>; expected: ReturnType<typeof plain> }> = [];
  for (let step = 0; step < 250; step++) {
    const changes = new Map<string, number | undefined>();
    for (let i = Math.floor(rnd() * 6); i >= 0; i--) {
      const key = keys[Math.floor(rnd() * keys.length)] ?? 'k0';
      changes.set(key, rnd() < 0.4 ? undefined : step * 10 + i);
    }
    layered = layered.with(changes);
    reference = new Map(reference);
    for (const [k, v] of changes) {
      if (v === undefined) reference.delete(k);
      else reference.set(k, v);
    }
    expect(view(layered)).toEqual(plain(reference));
    expect(keys.map((k) => [layered.get(k), layered.has(k)])).toEqual(
      keys.map((k) => [reference.get(k), reference.has(k)]),
    );
    versions.push({ map: layered, expected: plain(reference) });
  }
  for (const { map, expected } of versions) expect(view(map)).toEqual(expected);
});

test('no changes give the same map; keys added go last, changed ones keep their place', () => {
  const m = LayeredMap.of(new Map([['a', 1]]));
  expect(m.with(new Map())).toBe(m);
  const n = m.with(new Map([['b', 2]]));
  expect([...n.keys()]).toEqual(['a', 'b']);
  expect(n.with(new Map([['b', undefined]])).size).toBe(1);
  expect(n.with(new Map([['zz', undefined]])).size).toBe(2);
  // a value changed in place keeps its place in the iteration order
  expect([...n.with(new Map([['a', 5]])).entries()]).toEqual([
    ['a', 5],
    ['b', 2],
  ]);
});

test('changesSince finds what changed from the top layers while the base is shared; without folding it stays shared', () => {
  const base = LayeredMap.of(new Map(Array.from({ length: 100 }, (_, i) => [`k${i}`, i] as [string, number])));
  let m = base;
  // past the fold threshold (64 + 2·√100 = 84 keys in the top layer) without folding
  for (let i = 0; i < 200; i++) m = m.with(new Map([[`n${i}`, i]]), false);
  m = m.with(
    new Map<string, number | undefined>([
      ['k1', undefined],
      ['k2', 99],
    ]),
    false,
  );
  const changes = m.changesSince(base);
  expect(changes?.size).toBe(202);
  expect(changes?.get('k1')).toBeUndefined();
  expect(changes?.has('k1')).toBe(true);
  expect(changes?.get('k2')).toBe(99);
  expect(changes?.get('n7')).toBe(7);
  // folding makes a new base: the difference is no longer known cheaply
  const folded = m.with(new Map([['x', 1]]));
  expect(folded.changesSince(base)).toBeNull();
  expect(folded.get('n199')).toBe(199);
});
