import type { IncomingMessage, ServerResponse } from 'node:http';

/** Why a request's work stopped: its client closed the connection before the answer was sent. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client went away before its answer was sent');
    this.name = 'ClientGoneError';
  }
}

const signals = new WeakMap<IncomingMessage, AbortSignal>();

/**
 * Gives the request a signal that fires when its connection closes before the answer is written whole: no one
 * will read what its work makes. (A response's 'close' also follows a finished answer; `writableFinished` tells.)
 */
export function watchClient(req: IncomingMessage, res: ServerResponse): void {
  if (signals.has(req)) return;
  const controller = new AbortController();
  signals.set(req, controller.signal);
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  });
}

/** The signal {@link watchClient} gave the request, if any. */
export function clientSignal(req: IncomingMessage): AbortSignal | undefined {
  return signals.get(req);
}
