import { connect, type Socket } from 'node:net';
import type { MarketProvider } from '../../subgraphs/market/providers/provider';
import { startSystem } from '../support/system';

/** A raw TCP client: what the server wrote, and when it closed the connection. */
function rawClient(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve({ socket, received: () => data, closed }));
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString();
    });
    socket.on('error', () => undefined); // a reset is one way of being closed
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now())));
    socket.once('error', reject);
  });
}

// The two trickle tests mostly wait for the request timeout, each on a system of its own: run together (one jest
// group, before the serial tests), as their bounds only say "not before the timeout, not long after".
test.concurrent(
  'a request whose body trickles in is answered 408 and closed once HTTP_REQUEST_TIMEOUT_MS has passed',
  async () => {
    const sys = await startSystem({ HTTP_REQUEST_TIMEOUT_MS: '1500' });
    const drip: NodeJS.Timeout[] = [];
    try {
      const client = await rawClient(sys.url);
      const started = Date.now();
      client.socket.write(
        'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      );
      // one byte every 200 ms: an idle timeout alone would never fire
      drip.push(
        setInterval(() => {
          if (!client.socket.destroyed) client.socket.write(' ');
        }, 200),
      );
      const closedAt = await client.closed;
      expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(closedAt - started).toBeGreaterThanOrEqual(1_400);
      expect(closedAt - started).toBeLessThan(6_000); // timeout + Node's 1 s checking interval, with a wide margin
      // the server is fine for everyone else
      expect((await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`)).status).toBe(200);
    } finally {
      drip.forEach(clearInterval);
      await sys.close();
    }
  },
);

test.concurrent('headers that trickle in are cut off too', async () => {
  const sys = await startSystem({ HTTP_REQUEST_TIMEOUT_MS: '1000' });
  const drip: NodeJS.Timeout[] = [];
  try {
    const client = await rawClient(sys.url);
    const started = Date.now();
    client.socket.write('GET /v1/quote/AAPL:NASDAQ HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    drip.push(
      setInterval(() => {
        if (!client.socket.destroyed) client.socket.write('X-Slow: 1\r\n');
      }, 200),
    );
    const closedAt = await client.closed;
    expect(closedAt - started).toBeLessThan(6_000);
    expect(client.received()).not.toMatch(/200 OK/);
  } finally {
    drip.forEach(clearInterval);
    await sys.close();
  }
});

test('connections beyond HTTP_MAX_CONNECTIONS are closed at once; the ones within it are served', async () => {
  const sys = await startSystem({ HTTP_MAX_CONNECTIONS: '5' });
  const clients: Array<Awaited<ReturnType<typeof rawClient>>> = [];
  try {
    for (let i = 0; i < 5; i++) clients.push(await rawClient(sys.url)); // five idle connections hold every slot
    const extra = await rawClient(sys.url);
    const closedAt = await Promise.race([extra.closed, new Promise<number>((r) => setTimeout(() => r(-1), 3_000))]);
    expect(closedAt).toBeGreaterThan(0); // closed by the server without an answer
    expect(extra.received()).toBe('');
    // a connection within the cap still gets answers
    const first = clients[0] as (typeof clients)[number];
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await first.closed;
    expect(first.received()).toMatch(/^HTTP\/1\.1 200 /);
    // once a slot is free, new clients are served again
    await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`${sys.url}/healthz`)).status).toBe(200);
  } finally {
    for (const c of clients) c.socket.destroy();
    await sys.close();
  }
});

test('close() does not wait for connections that have sent nothing (Node would keep them until the client left)', async () => {
  const sys = await startSystem({});
  const silent = await rawClient(sys.url); // connected, never sends a byte
  const started = Date.now();
  await sys.close();
  expect(Date.now() - started).toBeLessThan(3_000);
  const closedAt = await silent.closed;
  expect(closedAt - started).toBeLessThan(3_000);
  expect(silent.received()).toBe('');
});

test('close() lets a request in flight finish, and cuts one still running after SHUTDOWN_GRACE_MS', async () => {
  const slowProvider = (ms: number): MarketProvider => ({
    name: 'slow',
    fetch: (requests) =>
      new Promise((resolve) => {
        setTimeout(() => resolve(requests.map(() => ({ ok: true, value: null }))), ms).unref();
      }),
  });
  // finishes within the grace period: answered in full
  const patient = await startSystem(
    { SHUTDOWN_GRACE_MS: '5000', SUBGRAPH_TIMEOUT_MS: '20000' },
    { marketProvider: slowProvider(800) },
  );
  const answered = fetch(`${patient.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ headline { title } }' }),
  });
  await new Promise((r) => setTimeout(r, 200));
  await patient.close();
  expect((await answered).status).toBe(200);
  // still running when the grace period ends: its connection is cut, and close() returns
  const hasty = await startSystem(
    { SHUTDOWN_GRACE_MS: '500', SUBGRAPH_TIMEOUT_MS: '20000' },
    { marketProvider: slowProvider(10_000) },
  );
  const cut = fetch(`${hasty.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ headline { title } }' }),
  }).then(
    () => 'answered',
    () => 'cut',
  );
  await new Promise((r) => setTimeout(r, 200));
  const started = Date.now();
  await hasty.close();
  expect(Date.now() - started).toBeLessThan(3_000);
  expect(await cut).toBe('cut');
});
