/** Work in steps: run at once or with the event loop running between steps, stopped by a signal. */
import { runAtOnce, runInSteps } from './steps';

function* counting(steps: number): Generator<undefined, number> {
  for (let i = 0; i < steps; i++) yield;
  return steps;
}

/** Turns of the event loop that ran while `work` did (a ticker on the loop's check phase counting them). */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let ticking = true;
  const tick = (): void => {
    if (!ticking) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    ticking = false;
  }
  return turns;
}

it('runs to the end at once, or letting the loop run at every step', async () => {
  expect(runAtOnce(counting(1000))).toBe(1000);
  let result = 0;
  const turns = await turnsDuring(async () => (result = await runInSteps(counting(20))));
  expect(result).toBe(20);
  expect(turns).toBeGreaterThan(0);
});

it('with stepMs, lets the loop run only once a step has taken that long', async () => {
  const turns = await turnsDuring(() => runInSteps(counting(1000), { stepMs: 60_000 }));
  expect(turns).toBe(0);
});

it('stops once the signal fires, with its reason', async () => {
  const controller = new AbortController();
  function* stopping(): Generator<undefined, string> {
    yield;
    controller.abort(new Error('client gone'));
    yield;
    yield;
    return 'finished';
  }
  await expect(runInSteps(stopping(), { signal: controller.signal })).rejects.toThrow('client gone');
});
