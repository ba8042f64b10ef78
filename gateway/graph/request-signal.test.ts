import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientStop, ClientGoneError, StopSource, watchClient } from './request-signal';

/** A request's signal fires when its client closes the connection before the answer; never after an answer. */
test('fires when the client goes away before its answer, not once it was answered', async () => {
  const signals: AbortSignal[] = [];
  const waiting: ServerResponse[] = [];
  let arrived = () => {};
  const server = createServer((req, res) => {
    watchClient(req, res);
    const signal = clientStop(req)?.signal;
    if (signal) signals.push(signal);
    if (req.url === '/answer') res.end('ok');
    else waiting.push(res); // answered never: its client leaves
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    expect(await (await fetch(`${url}/answer`)).text()).toBe('ok');
    const client = new AbortController();
    const here = new Promise<void>((resolve) => (arrived = resolve));
    const left = fetch(`${url}/wait`, { signal: client.signal }).catch((err: unknown) => err);
    await here;
    client.abort();
    await left;
    const [answered, gone] = signals;
    if (!gone) throw new Error('the second request has no signal');
    if (!gone.aborted) await new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve()));
    expect(gone.reason).toBeInstanceOf(ClientGoneError);
    expect(answered?.aborted).toBe(false);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a stop makes its AbortSignal only when asked, already aborted when it came later; followers are called once', () => {
  const early = new StopSource();
  const calls: unknown[] = [];
  const unfollow = early.onStop((reason) => calls.push(reason));
  early.onStop((reason) => calls.push(['second', reason]))();
  const signal = early.signal;
  expect(signal.aborted).toBe(false);
  early.stop('gone');
  early.stop('again');
  unfollow();
  expect(signal.aborted).toBe(true);
  expect(signal.reason).toBe('gone');
  expect(calls).toEqual(['gone']);

  const late = new StopSource();
  late.stop('late');
  expect(late.stopped).toBe(true);
  expect(late.signal.aborted).toBe(true); // made after the stop: aborted from the start
  const seen: unknown[] = [];
  late.onStop((reason) => seen.push(reason));
  expect(seen).toEqual(['late']);
});
