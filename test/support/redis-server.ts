import { spawn, type ChildProcess } from 'node:child_process';
import { acceptsTcp as accepts, freePort } from '../bench/processes';

/**
 * A redis-server of a test's own on a free 127.0.0.1 port, without persistence, that the test can kill (SIGKILL, no
 * goodbye to clients) and start again on the same port. The binary must be installed (`redis-server`): a missing
 * one is a failure, not a skip.
 */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  readonly running: boolean;
  start(): Promise<void>;
  /** SIGKILL, then waits until the process is gone. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that keeps its connections but answers nothing. */
  pause(): void;
  resume(): void;
}

export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const redis: TestRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async start() {
      if (redis.running) return;
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      child = started;
      const failed = new Promise<never>((_, reject) => {
        started.once('error', (err) =>
          reject(new Error(`cannot start redis-server (is it installed?): ${err.message}`)),
        );
        started.once('exit', (code) => reject(new Error(`redis-server on port ${port} exited at once (code ${code})`)));
      });
      failed.catch(() => undefined);
      const until = Date.now() + 10_000;
      for (;;) {
        if (await Promise.race([accepts(port), failed])) return;
        if (Date.now() > until) throw new Error(`redis-server did not accept connections on port ${port} within 10 s`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async kill() {
      const running = child;
      if (!running || !redis.running) return;
      const gone = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGKILL');
      await gone;
    },
    pause() {
      if (redis.running) child?.kill('SIGSTOP');
    },
    resume() {
      if (redis.running) child?.kill('SIGCONT');
    },
  };
  await redis.start();
  return redis;
}
