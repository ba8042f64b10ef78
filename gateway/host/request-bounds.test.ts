import { nestingDepth } from './request-bounds';

test('nestingDepth counts arrays and objects, not scalars', () => {
  expect(nestingDepth(1, 10)).toBe(0);
  expect(nestingDepth('x', 10)).toBe(0);
  expect(nestingDepth(null, 10)).toBe(0);
  expect(nestingDepth({}, 10)).toBe(1);
  expect(nestingDepth({ a: [1, { b: 2 }], c: 3 }, 10)).toBe(3);
  expect(nestingDepth([[[]], [[[]]]], 10)).toBe(4);
});

test('nestingDepth stops past the limit, even on nesting that would overflow a recursive walk', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 400_000; i++) deep = [deep];
  expect(() => JSON.stringify(deep)).toThrow(RangeError); // what the response cache key did with it
  expect(nestingDepth(deep, 32)).toBe(33);
  expect(nestingDepth({ ok: { x: 1 }, bad: deep }, 32)).toBe(33);
});
