/** A background operation's progress comes from the DNS engine's signing while the API waits for the engine. */
import { servingOf, type ServingEngine } from './serving';

it('reports the DNS engine signing progress while it waits, and stops once the change is served', async () => {
  let served!: () => void;
  let reads = 0;
  const engine: ServingEngine = {
    served: () => new Promise<void>((resolve) => (served = resolve)),
    signingProgress: () => {
      reads++;
      if (reads === 1) return null; // not signing yet
      if (reads === 3) served();
      return { done: reads * 100, total: 1000 };
    },
  };
  const seen: Array<[number, number | null]> = [];
  await servingOf(engine, 5).served('p.test', 7, (done, total) => seen.push([done, total]));
  expect(seen).toEqual([
    [200, 1000],
    [300, 1000],
  ]);
  const after = reads;
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(reads).toBe(after); // no more polling once served
});

it('only waits when nobody wants progress', async () => {
  const engine: ServingEngine = {
    served: () => Promise.resolve(),
    signingProgress: () => {
      throw new Error('not asked');
    },
  };
  await expect(servingOf(engine, 1).served('p.test', 1)).resolves.toBeUndefined();
});
