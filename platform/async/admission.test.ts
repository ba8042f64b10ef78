import { Admission, AdmissionFullError } from '.';

test('at most `running` hold a slot; the next ones wait in order; beyond the queue a caller is refused', async () => {
  const gate = new Admission({ running: 1, waiting: 2 });
  const first = await gate.enter();
  const order: string[] = [];
  const second = gate.enter().then((release) => (order.push('second'), release));
  const third = gate.enter().then((release) => (order.push('third'), release));
  expect([gate.running, gate.waiting]).toEqual([1, 2]);
  await expect(gate.enter()).rejects.toEqual(new AdmissionFullError(1, 2));
  first();
  first(); // a second release gives nothing back
  (await second)();
  (await third)();
  expect(order).toEqual(['second', 'third']);
  expect([gate.running, gate.waiting]).toEqual([0, 0]);
});

test('with no queue, a full admission refuses at once', async () => {
  const gate = new Admission({ running: 2, waiting: 0 });
  const a = await gate.enter();
  await gate.enter();
  await expect(gate.enter()).rejects.toBeInstanceOf(AdmissionFullError);
  a();
  await expect(gate.enter()).resolves.toEqual(expect.any(Function));
});

test('a slot given back goes to the first waiter, not to a caller arriving after it', async () => {
  const gate = new Admission({ running: 1, waiting: 1 });
  const release = await gate.enter();
  const waiting = gate.enter();
  release();
  // The waiter holds the slot now: a newcomer has to queue (and the queue has room again).
  expect([gate.running, gate.waiting]).toEqual([1, 0]);
  const late = gate.enter();
  expect(gate.waiting).toBe(1);
  (await waiting)();
  (await late)();
  expect(gate.running).toBe(0);
});

test('a waiter whose signal fires leaves the queue with its reason; one already stopped is never queued', async () => {
  const gate = new Admission({ running: 1, waiting: 1 });
  const release = await gate.enter();
  const caller = new AbortController();
  const waiting = gate.enter(caller.signal);
  caller.abort(new Error('the client went away'));
  await expect(waiting).rejects.toThrow('the client went away');
  expect(gate.waiting).toBe(0);
  await expect(gate.enter(caller.signal)).rejects.toThrow('the client went away');
  release();
  expect(gate.running).toBe(0);
});

test.each([
  [{ running: 0, waiting: 1 }, 'running must be at least 1'],
  [{ running: 1, waiting: -1 }, 'waiting must be 0 or more'],
  [{ running: 1.5, waiting: 0 }, 'running must be at least 1'],
])('limits %j are refused: %s', (limits, message) => {
  expect(() => new Admission(limits)).toThrow(message);
});
