import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientSignal, ClientGoneError, watchClient } from './request-signal';

/** A request's signal fires when its client closes the connection before the answer; never after an answer. */
test('fires when the client goes away before its answer, not once it was answered', async () => {
  const signals: AbortSignal[] = [];
  const waiting: ServerResponse[] = [];
  let arrived = () => {};
  const server = createServer((req, res) => {
    watchClient(req, res);
    const signal = clientSignal(req);
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
