// @needs redis
import { GraphQLError } from 'graphql';
import { RedisLink } from '../../../platform/redis';
import { apiError } from '../errors';
import { OPERATION_LIMITS, Operations, SHARING, type ProgressReport } from './operations';
import { RedisSharedOperations } from './shared-operations';

/**
 * Background operations shared by replicas through Redis (127.0.0.1:6379): an operation started on one replica is
 * read through another while it runs, with its progress, and once it ends; one whose replica stops saying it runs it
 * is told as failed. The clock is injected: nothing waits on time but Redis round trips.
 */
const prefix = `test-operations-${process.pid}-${Date.now()}:`;
let link: RedisLink;
let now = Date.parse('2026-01-01T00:00:00Z');
const clock = () => now;

beforeAll(async () => {
  link = new RedisLink({
    url: 'redis://127.0.0.1:6379',
    purpose: 'operations test',
    fallback: 'none',
    connectTimeoutMs: 1000,
    commandTimeoutMs: 1000,
  });
  for (let i = 0; i < 100 && !link.up; i++) await new Promise((r) => setTimeout(r, 20));
  if (!link.up) throw new Error('Redis at 127.0.0.1:6379 is not answering (the tests need it)');
});
afterAll(async () => {
  const keys = await link.run((c) => c.keys(`${prefix}*`));
  if (keys.length) await link.run((c) => c.del(keys));
  await link.close();
});

/** Two replicas' registries on one Redis. */
function replicas() {
  const shared = new RedisSharedOperations(link, prefix);
  return [
    new Operations(OPERATION_LIMITS, undefined, clock, shared),
    new Operations(OPERATION_LIMITS, undefined, clock, shared),
  ] as const;
}

/** A work that waits until the test ends it, and hands out its progress report. */
function gate<T>() {
  let end: (value: T) => void = () => undefined;
  let fail: (err: unknown) => void = () => undefined;
  let report: ProgressReport = () => undefined;
  const done = new Promise<T>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return {
    work: (progress: ProgressReport) => {
      report = progress;
      return done;
    },
    end: (v: T) => end(v),
    fail: (e: unknown) => fail(e),
    progress: (d: number, t: number | null) => report(d, t),
  };
}

/** Polls `read` until `ok` holds (Redis writes are in the background), at most 2 s. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (ok(value) || i >= 200) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('an operation started on one replica is read through the other: running, its progress, then its result', async () => {
  const [a, b] = replicas();
  const held = gate<{ name: string }>();
  const started = a.start('import_zone', 'big.test', 'user-1', held.work);
  const seen = await until(
    () => b.find(started.id),
    (op) => op?.state === 'running',
  );
  expect(seen).toMatchObject({ id: started.id, kind: 'import_zone', zone: 'big.test', owner: 'user-1' });
  expect(b.get(started.id)).toBeUndefined(); // not b's own: it came from Redis

  // the work has started by now (it starts on the turn after start); progress is shared at most once a second
  now += SHARING.progressMs;
  held.progress(40, 100);
  expect(
    await until(
      () => b.find(started.id),
      (op) => op?.progress?.done === 40,
    ),
  ).toMatchObject({ progress: { done: 40, total: 100 } });

  held.end({ name: 'big.test' });
  await a.drain();
  expect(
    await until(
      () => b.find(started.id),
      (op) => op?.state === 'succeeded',
    ),
  ).toMatchObject({ state: 'succeeded', result: { name: 'big.test' }, error: null });
});

test('a failed operation is read through the other replica with its error', async () => {
  const [a, b] = replicas();
  const held = gate<never>();
  const started = a.start('enable_dnssec', 'x.test', 'user-1', held.work);
  held.fail(apiError('CONFLICT', 'DNSSEC is already enabled for zone x.test'));
  await a.drain();
  expect(
    await until(
      () => b.find(started.id),
      (op) => op?.state === 'failed',
    ),
  ).toMatchObject({
    state: 'failed',
    error: { code: 'CONFLICT', message: 'DNSSEC is already enabled for zone x.test' },
  });
});

test('an operation whose replica stopped saying it runs it is told as failed through the other', async () => {
  const [a, b] = replicas();
  const held = gate<string>();
  const started = a.start('import_zone', 'gone.test', 'user-1', held.work);
  await until(
    () => b.find(started.id),
    (op) => op?.state === 'running',
  );
  now += SHARING.goneAfterMs; // replica a's heartbeats stopped (it was killed): nothing more was written
  const told = await b.find(started.id);
  expect(told).toMatchObject({ state: 'failed', error: { code: 'UNAVAILABLE' } });
  expect(told?.error?.message).toMatch(/stopped before it finished/);
  held.end('done');
  await a.drain();
});

test('unknown and malformed ids are none; an unreachable Redis is UNAVAILABLE, not "none"', async () => {
  const [a] = replicas();
  expect(await a.find('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  expect(await a.find('not-an-id')).toBeUndefined();
  const down = new RedisLink({
    url: 'redis://127.0.0.1:1',
    purpose: 'operations test',
    fallback: 'none',
    connectTimeoutMs: 200,
    commandTimeoutMs: 200,
  });
  try {
    const lonely = new Operations(OPERATION_LIMITS, undefined, clock, new RedisSharedOperations(down, prefix));
    const err = await lonely.find('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphQLError);
    expect((err as GraphQLError).extensions.code).toBe('UNAVAILABLE');
  } finally {
    await down.close();
  }
});
