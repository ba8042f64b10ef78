// @needs redis
/** The Redis link without a Redis: a refused connection marks it down once, and calls fail at once. */
import { RedisLink, RedisTimeoutError, RedisUnavailableError, bounded } from './redis-link';

test('bounded: a promise that does not settle in time rejects with RedisTimeoutError', async () => {
  await expect(bounded(new Promise(() => {}), 20)).rejects.toThrow(new RedisTimeoutError(20));
  await expect(bounded(Promise.resolve('fast'), 1_000)).resolves.toBe('fast');
});

test('nothing listening: the link goes down once, says so in health and one log line, and run fails at once', async () => {
  const warnings: string[] = [];
  const log = { info: () => {}, warn: (_: object, msg: string) => warnings.push(msg) };
  const link = new RedisLink({
    url: 'redis://localhost:1', // nothing listens on port 1: refused at once (no Redis needed)
    purpose: 'test cache',
    fallback: 'reading through',
    connectTimeoutMs: 500,
    commandTimeoutMs: 200,
    log,
  });
  const changes: boolean[] = [];
  link.onChange((up) => changes.push(up));
  try {
    expect(link.up).toBe(false);
    await expect(link.run((c) => c.ping())).rejects.toThrow(RedisUnavailableError);
    const deadline = Date.now() + 5_000;
    while (link.health().state !== 'down' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(link.health()).toMatchObject({ state: 'down', since: expect.any(String), error: expect.any(String) });
    await new Promise((r) => setTimeout(r, 300)); // reconnect attempts meanwhile: still one line
    expect(warnings).toEqual(['test cache: Redis is unreachable, so reading through until it answers again']);
    expect(changes).toEqual([false]);
    const started = Date.now();
    await expect(link.run((c) => c.ping())).rejects.toThrow(/^test cache: Redis is unreachable \(/);
    expect(Date.now() - started).toBeLessThan(50);
  } finally {
    await link.close();
  }
});

test('Redis up, start-up holding the loop past the connect timeout: no outage is told, and the link comes up', async () => {
  // Needs Redis at 127.0.0.1:6379. A start-up that builds schemas and opens stores for longer than the connect
  // timeout makes the client time out on a connection that had succeeded: not an outage, and not worth a warning.
  const lines: string[] = [];
  const log = { info: (_: object, msg: string) => lines.push(msg), warn: (_: object, msg: string) => lines.push(msg) };
  const link = new RedisLink({
    url: 'redis://127.0.0.1:6379',
    purpose: 'test sessions',
    fallback: 'logins fail',
    connectTimeoutMs: 100,
    commandTimeoutMs: 500,
    log,
  });
  try {
    const busyUntil = Date.now() + 400;
    while (Date.now() < busyUntil); // the loop held, as by a start-up's synchronous work
    const deadline = Date.now() + 5_000;
    while (!link.up && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(link.up).toBe(true);
    await expect(link.run((c) => c.ping())).resolves.toBe('PONG');
    expect(lines).toEqual([]);
  } finally {
    await link.close();
  }
});
