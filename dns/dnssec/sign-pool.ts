import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { pack, unpack } from './sign-batch';
import type { SignReply, SignRequest } from './sign-worker';

/**
 * Threads that sign while a zone is signed whole (signZoneInSteps): one per core, up to four. Signing is almost all
 * of that work and parallel by nature (each RRSIG on its own), so a 100 000-record zone signs about as many times
 * faster as there are cores. The threads are made on first use and never keep the process alive.
 */
export interface SignJob {
  keyId: string;
  algorithm: number;
  pkcs8: Buffer;
  items: Buffer[];
}

/** The compiled thread script; under ts-jest the sources run, so it is taken from dist/ (built by `npm run build`). */
function workerFile(): string | undefined {
  const file = __filename.endsWith('.ts')
    ? resolve(__dirname, '..', '..', 'dist', 'dns', 'dnssec', 'sign-worker.js')
    : join(__dirname, 'sign-worker.js');
  return existsSync(file) ? file : undefined;
}

export class SignPool {
  /** How long threads without work are kept (ms). */
  static idleMs = 10_000;

  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, { resolve(s: Buffer[]): void; reject(e: Error): void }>();
  private next = 0;
  private turn = 0;
  private idle?: NodeJS.Timeout;
  private ended = false;

  private constructor(file: string, size: number) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(file);
      worker.on('message', (reply: SignReply) => this.settle(reply));
      worker.on('error', (err) => this.failAll(err));
      worker.unref(); // after the listeners (a 'message' listener refs the thread again); ref'd while it has work
      this.workers.push(worker);
    }
  }

  /** The process's pool; undefined when there is one core only or no compiled thread script (then sign inline). */
  static shared(): SignPool | undefined {
    if (shared === null) {
      const file = workerFile();
      const size = Math.min(4, availableParallelism());
      shared = file && size > 1 ? new SignPool(file, size) : undefined;
    }
    return shared;
  }

  /**
   * Signatures of `job.items`, in order, made by the next thread: views of one buffer the thread handed over. The
   * items go to it in one buffer too, handed over rather than copied (a message of many small buffers costs more to
   * clone than signing them).
   */
  sign(job: SignJob): Promise<Buffer[]> {
    const id = this.next++;
    const worker = this.workers[this.turn++ % this.workers.length] as Worker;
    if (this.ended) return Promise.reject(new Error('the signing pool has ended')); // its caller signs inline
    if (this.idle) clearTimeout(this.idle);
    if (this.waiting.size === 0) for (const w of this.workers) w.ref(); // work in progress keeps the process up
    const { data, lengths, transfer } = pack(job.items);
    const request: SignRequest = { id, keyId: job.keyId, algorithm: job.algorithm, pkcs8: job.pkcs8, data, lengths };
    return new Promise((resolvePromise, reject) => {
      this.waiting.set(id, { resolve: resolvePromise, reject });
      worker.postMessage(request, transfer);
    });
  }

  private settle(reply: SignReply): void {
    const waiter = this.waiting.get(reply.id);
    if (!waiter) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.rest();
    if (reply.signatures && reply.lengths) waiter.resolve(unpack(reply.signatures, reply.lengths));
    else waiter.reject(new Error(`signing thread: ${reply.error ?? 'no signatures'}`));
  }

  private failAll(err: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
    this.rest();
  }

  /**
   * Nothing to sign: the threads no longer keep the process up, and after a while without work they end (each holds
   * a heap of its own, tens of MB; signing whole zones is rare: at start, key events, every few days).
   */
  private rest(): void {
    for (const w of this.workers) w.unref();
    this.idle = setTimeout(() => {
      if (shared === this) shared = null;
      this.ended = true;
      for (const w of this.workers) void w.terminate();
    }, SignPool.idleMs).unref();
  }
}

let shared: SignPool | undefined | null = null;
