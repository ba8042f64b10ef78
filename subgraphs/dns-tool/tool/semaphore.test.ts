import { Semaphore } from './semaphore';

test('at most `limit` tasks run at once; the rest start in arrival order as slots free up', async () => {
  const gate = new Semaphore(2);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const releases: Array<() => void> = [];
  const tasks = Array.from({ length: 5 }, (_, i) =>
    gate.run(async () => {
      running++;
      most = Math.max(most, running);
      order.push(i);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return i;
    }),
  );
  // Release whichever tasks are waiting, one at a time, until all have run.
  for (let done = 0; done < 5; done++) {
    while (releases.length === 0) await new Promise((r) => setImmediate(r));
    releases.shift()?.();
    await new Promise((r) => setImmediate(r));
  }
  expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
  expect(most).toBe(2);
  expect(order).toEqual([0, 1, 2, 3, 4]);
});

test('a failing task frees its slot', async () => {
  const gate = new Semaphore(1);
  await expect(gate.run(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
  expect(await gate.run(async () => 'next')).toBe('next');
});

test('a limit below 1 is refused', () => {
  expect(() => new Semaphore(0)).toThrow('a semaphore needs a limit of 1 or more');
});
