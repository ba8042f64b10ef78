/** Sorting in steps: the order Array.prototype.sort gives (stable), with yields along the way. */
import fc from 'fast-check';
import { runAtOnce } from './steps';
import { sortSteps } from './sort-steps';

const byKey = (a: [number, number], b: [number, number]): number => a[0] - b[0];

it('sorts as Array.prototype.sort does, stably, and leaves the input as it was', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.nat())), (items) => {
      const before = items.slice();
      expect(runAtOnce(sortSteps(items, byKey, 3))).toEqual(items.slice().sort(byKey));
      expect(items).toEqual(before);
    }),
  );
});

it('yields every `every` comparisons', () => {
  const items = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
  const steps = sortSteps(items, (a, b) => a - b, 100);
  let yields = 0;
  let step = steps.next();
  while (!step.done) {
    yields++;
    step = steps.next();
  }
  // a merge sort of 1 000 items makes several thousand comparisons: dozens of yields, none for a sorted pair
  expect(yields).toBeGreaterThan(30);
  expect(step.value).toEqual([...items].sort((a, b) => a - b));
  expect(runAtOnce(sortSteps([2, 1], (a, b) => a - b, 100))).toEqual([1, 2]);
});
