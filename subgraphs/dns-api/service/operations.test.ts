import { GraphQLError } from 'graphql';
import { apiError, invalid } from '../errors';
import { Operations, type OperationLimits, type ProgressReport } from './operations';

/** A work that waits until the test ends it. */
function gate<T>(): { work: (progress: ProgressReport) => Promise<T>; end(value: T): void; fail(err: unknown): void } {
  let end: (value: T) => void = () => undefined;
  let fail: (err: unknown) => void = () => undefined;
  const done = new Promise<T>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { work: () => done, end: (v) => end(v), fail: (e) => fail(e) };
}

const LIMITS: OperationLimits = { keepFinishedMs: 60_000, maxFinished: 3, maxRunning: 2 };

function registry(limits: Partial<OperationLimits> = {}) {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const errors: Array<{ obj: object; msg: string }> = [];
  const log = {
    info: () => undefined,
    warn: () => undefined,
    error: (obj: object, msg: string) => errors.push({ obj, msg }),
    child: () => log,
  };
  const operations = new Operations({ ...LIMITS, ...limits }, log, () => now);
  return {
    operations,
    errors,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test('an operation runs in the background and ends with its result', async () => {
  const { operations, advance } = registry();
  const held = gate<{ name: string }>();
  const started = operations.start('create_zone', 'a.test', 'user-1', held.work);
  expect(started).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    kind: 'create_zone',
    zone: 'a.test',
    owner: 'user-1',
    state: 'running',
    progress: null,
    result: null,
    error: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    finishedAt: null,
  });
  expect(operations.get(started.id)?.state).toBe('running');
  expect(operations.active).toBe(1);
  advance(1500);
  held.end({ name: 'a.test' });
  await operations.drain();
  expect(operations.get(started.id)).toMatchObject({
    state: 'succeeded',
    result: { name: 'a.test' },
    error: null,
    finishedAt: '2026-01-01T00:00:01.500Z',
  });
  expect(operations.active).toBe(0);
  // The snapshot returned at the start does not change under the caller.
  expect(started.state).toBe('running');
});

test('a failure keeps the API error: its code, message and invalid fields', async () => {
  const { operations, errors } = registry();
  const conflict = operations.start('enable_dnssec', 'a.test', 'u', () =>
    Promise.reject(apiError('CONFLICT', 'DNSSEC is already enabled for zone a.test')),
  );
  const bad = operations.start('import_zone', 'b.test', 'u', () =>
    Promise.reject(invalid('zoneFile', 'zoneFile could not be read: line 2')),
  );
  await operations.drain();
  expect(operations.get(conflict.id)).toMatchObject({
    state: 'failed',
    result: null,
    error: { code: 'CONFLICT', message: 'DNSSEC is already enabled for zone a.test', errors: null },
  });
  expect(operations.get(bad.id)?.error).toEqual({
    code: 'BAD_USER_INPUT',
    message: 'zoneFile could not be read: line 2',
    errors: [{ field: 'zoneFile', message: 'zoneFile could not be read: line 2' }],
  });
  expect(errors).toEqual([]);
});

test('anything else is a bug: an internal error without its details, logged', async () => {
  const { operations, errors } = registry({ maxRunning: 10 });
  const broken = operations.start('rotate_dnssec', 'a.test', 'u', () => Promise.reject(new Error('disk on fire')));
  const codeless = operations.start('rotate_dnssec', 'b.test', 'u', () => Promise.reject(new GraphQLError('odd')));
  const thrown = operations.start('rotate_dnssec', 'c.test', 'u', () => {
    throw new Error('thrown before any await');
  });
  await operations.drain();
  for (const op of [broken, codeless, thrown])
    expect(operations.get(op.id)?.error).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'internal error',
      errors: null,
    });
  expect(errors.map((e) => e.msg)).toEqual(['operation failed', 'operation failed', 'operation failed']);
  expect(errors.map((e) => e.obj)).toContainEqual(
    expect.objectContaining({ operation: broken.id, kind: 'rotate_dnssec', zone: 'a.test' }),
  );
});

test('progress: what the work reports while it runs, nothing after it ended', async () => {
  const { operations } = registry();
  let report: ProgressReport = () => undefined;
  const held = gate<string>();
  const started = operations.start('enable_dnssec', 'a.test', 'u', (progress) => {
    report = progress;
    return held.work(progress);
  });
  await new Promise((resolve) => setImmediate(resolve)); // the work starts on a later turn
  report(250, 1000);
  expect(operations.get(started.id)?.progress).toEqual({ done: 250, total: 1000 });
  report(260, null);
  expect(operations.get(started.id)?.progress).toEqual({ done: 260, total: null });
  held.end('ok');
  await operations.drain();
  report(999, 1000);
  expect(operations.get(started.id)?.progress).toEqual({ done: 260, total: null });
});

test('at most maxRunning at once: one more is TOO_MANY_REQUESTS with a wait, and may start once one ended', async () => {
  const { operations } = registry();
  const first = gate<string>();
  operations.start('create_zone', 'a.test', 'u', first.work);
  operations.start('create_zone', 'b.test', 'u', gate<string>().work);
  let refused: unknown;
  try {
    operations.start('create_zone', 'c.test', 'u', gate<string>().work);
  } catch (err) {
    refused = err;
  }
  expect(refused).toBeInstanceOf(GraphQLError);
  expect((refused as GraphQLError).extensions).toEqual({ code: 'TOO_MANY_REQUESTS', retryAfter: 5 });
  expect((refused as GraphQLError).message).toBe(
    '2 long operations are running already: wait for one to finish, or send the request without respond-async',
  );
  first.end('done');
  await new Promise((resolve) => setImmediate(resolve));
  expect(operations.start('create_zone', 'c.test', 'u', gate<string>().work).state).toBe('running');
});

test('finished operations are kept keepFinishedMs, running ones as long as they run', async () => {
  const { operations, advance } = registry();
  const long = operations.start('enable_dnssec', 'a.test', 'u', gate<string>().work);
  const short = operations.start('create_zone', 'b.test', 'u', () => Promise.resolve('done'));
  await new Promise((resolve) => setImmediate(resolve));
  advance(60_000);
  expect(operations.get(short.id)?.state).toBe('succeeded');
  advance(1);
  expect(operations.get(short.id)).toBeUndefined();
  expect(operations.get(long.id)?.state).toBe('running');
});

test('at most maxFinished finished operations: the oldest finished are forgotten first', async () => {
  const { operations, advance } = registry({ maxRunning: 10 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    ids.push(operations.start('create_zone', `z${i}.test`, 'u', () => Promise.resolve(i)).id);
    await operations.drain();
    advance(10);
  }
  expect(ids.map((id) => operations.get(id)?.result ?? null)).toEqual([null, null, 2, 3, 4]);
  expect(operations.get('no-such-id')).toBeUndefined();
});

test('drain waits for every running operation', async () => {
  const { operations } = registry();
  const held = gate<string>();
  const op = operations.start('create_zone', 'a.test', 'u', held.work);
  let drained = false;
  const draining = operations.drain().then(() => (drained = true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(drained).toBe(false);
  held.end('done');
  await draining;
  expect(operations.get(op.id)?.state).toBe('succeeded');
});

test('the work starts on a later turn: its first synchronous steps do not hold back the answer that it started', async () => {
  const { operations } = registry();
  let began = false;
  const op = operations.start('import_zone', 'a.test', 'u', () => {
    began = true; // e.g. a master file parsed in one go
    return Promise.resolve('done');
  });
  for (let i = 0; i < 10; i++) await Promise.resolve(); // what an answer's promise chain takes
  expect(began).toBe(false);
  await operations.drain();
  expect(began).toBe(true);
  expect(operations.get(op.id)?.state).toBe('succeeded');
});
