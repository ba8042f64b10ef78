import type { IncomingMessage, ServerResponse } from 'node:http';

/** Why a request's work stopped: its client closed the connection before the answer was sent. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client went away before its answer was sent');
    this.name = 'ClientGoneError';
  }
}

/** Something that may stop a piece of work: its AbortSignal when the work wants one, or a callback. */
export interface Stop {
  /** An AbortSignal that fires with the stop (made on first use). */
  readonly signal: AbortSignal;
  readonly stopped: boolean;
  /** Calls `fn` once when stopped (at once when it already is); returns what takes the call back. */
  onStop(fn: (reason: unknown) => void): () => void;
}

const nothing = (): void => {};

/**
 * A stop whose AbortSignal is made only when somebody reads it. In Node 20 an AbortSignal (an EventTarget) costs
 * microseconds to make and each listener more; every request and every subgraph fetch has a stop, but only the few
 * long reads (zone transfers, exports, remote fetches) ever need a signal: the rest pay for a small object.
 */
export class StopSource implements Stop {
  private controller: AbortController | undefined;
  private reason: unknown;
  private isStopped = false;
  private followers: Array<(reason: unknown) => void> | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.isStopped) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  stop(reason: unknown): void {
    if (this.isStopped) return;
    this.isStopped = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const followers = this.followers;
    this.followers = undefined;
    for (const fn of followers ?? []) fn(reason);
  }

  onStop(fn: (reason: unknown) => void): () => void {
    if (this.isStopped) {
      fn(this.reason);
      return nothing;
    }
    (this.followers ??= []).push(fn);
    return () => {
      const i = this.followers?.indexOf(fn) ?? -1;
      if (i >= 0) this.followers?.splice(i, 1);
    };
  }
}

/** A stop that follows an AbortSignal someone already has (tests, callers that own one). */
export function stopOf(signal: AbortSignal): Stop {
  return {
    signal,
    get stopped() {
      return signal.aborted;
    },
    onStop(fn) {
      if (signal.aborted) {
        fn(signal.reason);
        return nothing;
      }
      const listener = (): void => fn(signal.reason);
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}

const stops = new WeakMap<IncomingMessage, StopSource>();

/**
 * Gives the request a stop that fires when its connection closes before the answer is written whole: no one will
 * read what its work makes. (A response's 'close' also follows a finished answer; `writableFinished` tells.)
 */
export function watchClient(req: IncomingMessage, res: ServerResponse): void {
  if (stops.has(req)) return;
  const stop = new StopSource();
  stops.set(req, stop);
  res.once('close', () => {
    if (!res.writableFinished) stop.stop(new ClientGoneError());
  });
}

/** The stop {@link watchClient} gave the request, if any. */
export function clientStop(req: IncomingMessage): Stop | undefined {
  return stops.get(req);
}
