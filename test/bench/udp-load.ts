/**
 * A steady UDP question load for the isolation bench, in a child process of its own (test/bench/udp-load-child.ts)
 * so that the bench's own work (HTTP bodies, dig) does not delay it: `qps` questions a second, paced (a few every
 * millisecond), one socket, half of them from `other` and half from the questions `target` sets (from `other` too
 * until then). Figures are kept per window (`open` … `close`), for the questions sent in it. The child runs at a
 * raised priority where allowed (nice -10), so that a busy machine delays the server rather than the measurement.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { BENCH_JS } from './common';
import type { WindowStats } from './isolation-stats';

/** A question: owner name and type. */
export type Question = readonly [string, string];

/** Parent → child. */
export type LoadCommand =
  | { kind: 'start'; port: number; qps: number; timeoutMs: number; other: Question[] }
  | { kind: 'target'; questions: Question[] }
  | { kind: 'open'; label: string }
  | { kind: 'close' }
  | { kind: 'stop' };

/** Child → parent. */
export type LoadEvent = { kind: 'ready' } | { kind: 'report'; stats: WindowStats } | { kind: 'error'; message: string };

export interface UdpLoad {
  /** Half of the questions from now on: these (the zone being worked on). */
  target(questions: Question[]): void;
  /** Opens a window (one at a time). */
  open(label: string): void;
  /** Closes the window: its figures once every question sent in it is answered or timed out. */
  close(): Promise<WindowStats>;
  stop(): Promise<void>;
}

export async function startUdpLoad(options: {
  port: number;
  qps: number;
  timeoutMs: number;
  other: Question[];
}): Promise<UdpLoad> {
  const child: ChildProcess = fork(join(BENCH_JS, 'udp-load-child.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    // the measuring instrument first: on a busy machine, a late send or read would count against the server
    setPriority(child.pid ?? 0, -10);
  } catch {
    // not allowed (not root): it runs at the usual priority, and says when it falls behind
  }
  let failure: Error | undefined;
  const waiting: Array<{ resolve: (s: WindowStats) => void; reject: (e: Error) => void }> = [];
  const fail = (err: Error): void => {
    failure ??= err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (event: LoadEvent) => {
      if (event.kind === 'ready') resolve();
      else if (event.kind === 'report') waiting.shift()?.resolve(event.stats);
      else {
        const err = new Error(`UDP load: ${event.message}`);
        reject(err);
        fail(err);
      }
    });
    child.once('exit', (code, signal) => {
      const err = new Error(`UDP load exited (${code ?? signal})`);
      reject(err);
      fail(err);
    });
  });
  const send = (command: LoadCommand): void => {
    if (failure) throw failure;
    child.send(command);
  };
  send({ kind: 'start', ...options });
  await ready;
  return {
    target: (questions) => send({ kind: 'target', questions }),
    open: (label) => send({ kind: 'open', label }),
    close: () =>
      new Promise<WindowStats>((resolve, reject) => {
        if (failure) return reject(failure);
        waiting.push({ resolve, reject });
        child.send({ kind: 'close' } satisfies LoadCommand);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send({ kind: 'stop' } satisfies LoadCommand);
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
