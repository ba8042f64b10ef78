import WebSocket from 'ws';
import { SIMULATED_TICKERS } from '../../subgraphs/market/providers/simulated/catalog';
import { startSystem, type RunningSystem } from '../support/system';
import { waitFor } from '../support/sse';
import { unixEntrance } from '../support/slow-clients';

/**
 * A GraphQL WebSocket whose client stops reading: the socket holds at most LIVE_MAX_STREAM_BUFFER_BYTES unsent (plus
 * the message that crossed it), and once it has stayed over that bound for LIVE_SLOW_CLIENT_TIMEOUT_MS it is closed
 * with 1013 and a reason naming the limit, freeing its slot and bytes. Over a Unix socket, whose kernel buffers are
 * small (~200 KB against several MB for loopback TCP), so the server's own buffering shows within a second.
 */
const STREAM_BOUND = 256 * 1024;
const HEAVY = `subscription Heavy($t: [String!]) { priceTicks(tickers: $t) { sequence quotes { ticker price
  company { description ceo sector marketCap } chart(range: ONE_DAY) { previousClose points { date price volume } }
  news { title source url timestamp } } } }`;

let sys: RunningSystem;
let unix: Awaited<ReturnType<typeof unixEntrance>>;
let ws: WebSocket | undefined;

beforeAll(async () => {
  sys = await startSystem({
    LIVE_INTERVAL_MS: '100',
    LIVE_MAX_STREAM_BUFFER_BYTES: String(STREAM_BOUND),
    LIVE_SLOW_CLIENT_TIMEOUT_MS: '1000',
  });
  unix = await unixEntrance(sys.system.app.server);
}, 30_000);

afterAll(async () => {
  ws?.terminate();
  await unix?.close();
  await sys?.close();
});

test('a client that stops reading is bounded by its buffer, then closed with 1013 naming liveSlowClientTimeoutMs', async () => {
  const { buffers } = sys.system.live;
  const endpoint = sys.system.live.wsEndpoint;
  if (!endpoint) throw new Error('no WebSocket endpoint');
  const socket = new WebSocket(`ws+unix://${unix.path}:/graphql`, 'graphql-transport-ws');
  ws = socket;
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  let largest = 0;
  const firstEvent = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const text = (data as Buffer).toString('utf8');
      const message = JSON.parse(text) as { type: string };
      if (message.type === 'connection_ack')
        socket.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: HEAVY, variables: { t: SIMULATED_TICKERS.slice(0, 8) } },
          }),
        );
      if (message.type === 'next') {
        largest = Math.max(largest, Buffer.byteLength(text));
        resolve();
      }
    });
  });
  await new Promise<void>((resolve) => socket.once('open', () => resolve()));
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await firstEvent;
  const disconnectsBefore = buffers.slowDisconnects;
  socket.pause(); // reads nothing more

  // The server's unsent bytes, sampled until it gives up on the client.
  let held = 0;
  await waitFor(
    () => {
      held = Math.max(held, buffers.bytes);
      return buffers.slowDisconnects > disconnectsBefore;
    },
    20_000,
    'slow client disconnected',
  );
  expect(held).toBeGreaterThanOrEqual(STREAM_BOUND); // it did fill up
  expect(held).toBeLessThanOrEqual(STREAM_BOUND + 2 * largest); // and no further than one message past the bound

  socket.resume(); // reads what was sent, then the close frame
  const close = await closed;
  // The close frame comes after what the client had not read; a client still not reading 2 s on is cut (1006).
  if (close.code !== 1006)
    expect(close).toEqual({
      code: 1013,
      reason: `the client read too slowly: over ${STREAM_BOUND} unsent bytes for 1000 ms (liveSlowClientTimeoutMs)`,
    });
  await waitFor(() => endpoint.stats().sockets === 0 && buffers.bytes === 0, 5_000, 'everything freed');
  expect(sys.system.live.connections.open).toBe(0);
}, 60_000);
