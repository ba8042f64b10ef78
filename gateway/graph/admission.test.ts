import { OperationAdmission } from './admission';

/** Work that settles when the test says so, recording when it started. */
function controlled(started: number[], id: number) {
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<number>((resolve, reject) => {
    finish = () => resolve(id);
    fail = reject;
  });
  return {
    work: () => {
      started.push(id);
      return done;
    },
    finish: () => finish(),
    fail: (err: Error) => fail(err),
  };
}

const ticks = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** Bounds with no timer of consequence: the tests call adapt() themselves. */
const manual = { min: 2, max: 10, everyMs: 3_600_000, utilization: () => 0 };

describe('OperationAdmission', () => {
  const gates: OperationAdmission[] = [];
  const gate = (...args: ConstructorParameters<typeof OperationAdmission>) => {
    const g = new OperationAdmission(...args);
    gates.push(g);
    return g;
  };
  afterEach(() => gates.splice(0).forEach((g) => g.close()));

  test('a fixed bound: at most that many run, the others start in arrival order as slots free', async () => {
    const g = gate(2);
    const started: number[] = [];
    const jobs = [0, 1, 2, 3, 4].map((i) => controlled(started, i));
    const results = jobs.map((j) => g.run(j.work));
    await ticks();
    expect(started).toEqual([0, 1]);
    expect({ running: g.running, waiting: g.waiting }).toEqual({ running: 2, waiting: 3 });
    jobs[1]?.finish();
    await ticks();
    expect(started).toEqual([0, 1, 2]);
    jobs[0]?.finish();
    await ticks();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const j of jobs) j.finish();
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4]);
    expect({ running: g.running, waiting: g.waiting }).toEqual({ running: 0, waiting: 0 });
  });

  test('work that fails frees its slot and its error reaches the caller', async () => {
    const g = gate(1);
    const started: number[] = [];
    const a = controlled(started, 0);
    const b = controlled(started, 1);
    const first = g.run(a.work);
    const second = g.run(b.work);
    await ticks();
    a.fail(new Error('subgraph down'));
    await expect(first).rejects.toThrow('subgraph down');
    await ticks();
    expect(started).toEqual([0, 1]);
    b.finish();
    await expect(second).resolves.toBe(1);
    expect(g.running).toBe(0);
  });

  test('off: no bound and nothing counted', async () => {
    const g = gate('off');
    const started: number[] = [];
    const jobs = Array.from({ length: 50 }, (_, i) => controlled(started, i));
    const results = jobs.map((j) => g.run(j.work));
    await ticks();
    expect(started).toHaveLength(50);
    expect(g.limit).toBe(Infinity);
    for (const j of jobs) j.finish();
    await Promise.all(results);
  });

  test('auto starts at its minimum; operations waiting while the loop has time to spare raise it and start', async () => {
    const g = gate('auto', manual);
    expect(g.limit).toBe(2);
    const started: number[] = [];
    const jobs = Array.from({ length: 6 }, (_, i) => controlled(started, i));
    const results = jobs.map((j) => g.run(j.work));
    await ticks();
    expect(started).toEqual([0, 1]);
    g.adapt(0.5); // half idle, four waiting: +half
    expect(g.limit).toBe(3);
    await ticks();
    expect(started).toEqual([0, 1, 2]);
    g.adapt(0.95); // busy but not saturated: held
    expect(g.limit).toBe(3);
    g.adapt(0.2);
    g.adapt(0.2);
    expect(g.limit).toBe(8); // 3 → 5 → 8; only six operations exist: all run
    await ticks();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    for (const j of jobs) j.finish();
    await Promise.all(results);
  });

  test('auto never rises without operations waiting, nor past its maximum', () => {
    const g = gate('auto', manual);
    for (let i = 0; i < 10; i++) g.adapt(0);
    expect(g.limit).toBe(2);
    const started: number[] = [];
    const jobs = Array.from({ length: 40 }, (_, i) => controlled(started, i));
    const results = jobs.map((j) => g.run(j.work));
    for (let i = 0; i < 10; i++) g.adapt(0);
    expect(g.limit).toBe(10);
    for (const j of jobs) j.finish();
    return Promise.all(results);
  });

  test('auto lowered while the loop is saturated: slots freed are not handed on until under the new limit', async () => {
    const g = gate('auto', { ...manual, max: 16 });
    const started: number[] = [];
    const jobs = Array.from({ length: 12 }, (_, i) => controlled(started, i));
    const results = jobs.map((j) => g.run(j.work));
    await ticks();
    g.adapt(0); // 2 → 3
    g.adapt(0); // → 5
    g.adapt(0); // → 8
    await ticks();
    expect(started).toHaveLength(8);
    g.adapt(0.99); // saturated: 8 → 7
    g.adapt(0.99); // → 6
    expect(g.limit).toBe(6);
    jobs[0]?.finish();
    jobs[1]?.finish();
    await ticks();
    // eight were running, limit six: the two freed slots go away instead of starting the next
    expect(started).toHaveLength(8);
    expect(g.running).toBe(6);
    jobs[2]?.finish();
    await ticks();
    expect(started).toHaveLength(9);
    for (let i = 0; i < 20; i++) g.adapt(1);
    expect(g.limit).toBe(2);
    for (const j of jobs) j.finish();
    await Promise.all(results);
  });

  test('auto adapts on its own from the event loop it is given', async () => {
    let busy = 0.1;
    const g = gate('auto', { min: 1, max: 64, everyMs: 5, utilization: () => busy });
    const started: number[] = [];
    const jobs = Array.from({ length: 20 }, (_, i) => controlled(started, i));
    const results = jobs.map((j) => g.run(j.work));
    for (let i = 0; i < 200 && started.length < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(started).toHaveLength(20);
    busy = 1;
    for (let i = 0; i < 400 && g.limit > 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(g.limit).toBe(1);
    for (const j of jobs) j.finish();
    await Promise.all(results);
  });

  test('close lets every waiting operation run', async () => {
    const g = gate(1);
    const started: number[] = [];
    const jobs = Array.from({ length: 4 }, (_, i) => controlled(started, i));
    const results = jobs.map((j) => g.run(j.work));
    await ticks();
    expect(started).toEqual([0]);
    g.close();
    await ticks();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const j of jobs) j.finish();
    await Promise.all(results);
  });
});
