import type { Socket } from 'node:net';
import { createClient, type Client } from 'graphql-sse';
import { SIMULATED_TICKERS } from '../../subgraphs/market/providers/simulated/catalog';
import { startSystem, type RunningSystem } from '../support/system';
import { dataFrames, openStream, waitFor } from '../support/sse';
import {
  gaps,
  heapAfterGc,
  neverReading,
  pausedResponse,
  sequencesIn,
  sleep,
  unixEntrance,
  type PausedResponse,
} from '../support/slow-clients';

/**
 * Clients that do not read what /graphql/stream sends them (docs/live.md: 100 such subscriptions took a gateway from
 * 140 MB to an out-of-memory crash in 50 s). Each stream may hold LIVE_MAX_STREAM_BUFFER_BYTES unsent; past it the
 * client loses its oldest events, one stuck too long is disconnected, and all streams together stay under
 * LIVE_MAX_BUFFERED_BYTES — while a client that reads on the same process keeps getting every event.
 */
const INTERVAL_MS = 100;
const STREAM_BOUND = 256 * 1024;
const TICKERS = SIMULATED_TICKERS.slice(0, 8);
/** A heavy selection: each event is ~150 KB of JSON. */
const HEAVY = `subscription Heavy($t: [String!]) { priceTicks(tickers: $t) { sequence quotes { ticker price
  company { description ceo sector marketCap } chart(range: ONE_DAY) { previousClose points { date price volume } }
  news { title source url timestamp } } } }`;
const BODY = JSON.stringify({ query: HEAVY, variables: { t: TICKERS } });
const STREAM_REQUEST = {
  method: 'POST' as const,
  path: '/graphql/stream',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: BODY,
};

type Tick = { priceTicks: { sequence: number } };

/** A graphql-sse client that reads every event as it comes; `sequences` grows until `stop()`. */
function fastReader(
  url: string,
  singleConnection: boolean,
): { sequences: number[]; sizes: number[]; stop(): Promise<void> } {
  const client: Client = createClient({ url: `${url}/graphql/stream`, singleConnection, retryAttempts: 0 });
  const sequences: number[] = [];
  const sizes: number[] = [];
  const it = client.iterate<Tick>({ query: HEAVY, variables: { t: TICKERS } });
  let failure: unknown;
  const done = (async () => {
    for await (const r of it) {
      if (r.errors) throw new Error(JSON.stringify(r.errors));
      sequences.push((r.data as Tick).priceTicks.sequence);
      sizes.push(JSON.stringify(r).length);
    }
  })().catch((err: unknown) => {
    failure = err;
  });
  let stopped: Promise<void> | undefined;
  return {
    sequences,
    sizes,
    /** Ends the subscription; throws what ended it early, if anything did. */
    stop: () =>
      (stopped ??= (async () => {
        await it.return?.();
        await done;
        client.dispose();
        if (failure) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
      })()),
  };
}

/** Every event after the first (which repeats the latest poll's number) comes, in order, none missing. */
function expectEveryEvent(sequences: number[], atLeast: number): void {
  expect(sequences.length).toBeGreaterThanOrEqual(atLeast);
  const after = sequences.slice(1);
  expect(after).toEqual(after.map((_, i) => (after[0] as number) + i));
}

describe('clients that do not read, on /graphql/stream', () => {
  let sys: RunningSystem;
  let unix: { path: string; close(): Promise<void> };
  const sockets: Socket[] = [];
  const readers: Array<{ stop(): Promise<void> }> = [];
  beforeAll(async () => {
    sys = await startSystem({
      LIVE_INTERVAL_MS: String(INTERVAL_MS),
      LIVE_MAX_STREAM_BUFFER_BYTES: String(STREAM_BOUND),
      LIVE_MAX_BUFFERED_BYTES: String(256 * 1024 * 1024),
      LIVE_SLOW_CLIENT_TIMEOUT_MS: '600000',
      LIVE_MAX_CONNECTIONS_PER_CLIENT: '500',
    });
    unix = await unixEntrance(sys.system.app.server);
  }, 30_000);
  afterAll(async () => {
    for (const r of readers) await r.stop().catch(() => undefined);
    for (const s of sockets) s.destroy();
    await unix?.close();
    await sys?.close();
  });

  test('40 never-reading streams (both modes) hold at most their bound each, the heap stays flat, slow readers lose the oldest events, fast readers get every one', async () => {
    const endpoint = sys.system.live.endpoint;
    if (!endpoint) throw new Error('no stream endpoint');
    const port = Number(new URL(sys.url).port);
    const target = unix.path;
    const distinct = fastReader(sys.url, false);
    const single = fastReader(sys.url, true);
    readers.push(distinct, single);
    await waitFor(() => distinct.sequences.length > 2 && single.sequences.length > 2, 10_000, 'fast readers started');
    const heapBefore = heapAfterGc();

    // 32 distinct-connections streams that never read, and 4 single-connection streams that never read with 2
    // operations each; 2 slow readers (paused now, read later).
    // Most over a Unix socket (small kernel buffers: the server's own buffering shows within seconds), some over TCP.
    for (let i = 0; i < 32; i++) sockets.push(await neverReading(i % 8 === 0 ? port : target, STREAM_REQUEST));
    for (let i = 0; i < 4; i++) {
      const token = await (await fetch(`${sys.url}/graphql/stream`, { method: 'PUT' })).text();
      sockets.push(
        await neverReading(target, {
          method: 'GET',
          path: '/graphql/stream',
          headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
        }),
      );
      await waitFor(() => endpoint.stats().reservations === 0, 5_000, 'stream opened');
      for (const id of ['a', 'b']) {
        const res = await fetch(`${sys.url}/graphql/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
          body: JSON.stringify({ query: HEAVY, variables: { t: TICKERS }, extensions: { operationId: id } }),
        });
        expect(res.status).toBe(202);
      }
    }
    const slow: PausedResponse[] = [];
    for (let i = 0; i < 2; i++)
      slow.push(
        await pausedResponse(`${sys.url}/graphql/stream`, {
          method: 'POST',
          headers: STREAM_REQUEST.headers,
          body: BODY,
          socketPath: target,
        }),
      );
    await waitFor(() => endpoint.stats().operations === 2 + 32 + 8 + 2, 10_000, 'every operation running');

    // 8 s of events: about 80 per stream, ~4 MB each, ~160 MB in all if nothing bounded them; a stuck stream falls
    // further behind than the price hub queues for it (64 events), so it loses the oldest.
    let maxHeld = 0;
    let maxAllowed = 0;
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      await sleep(200);
      const { bufferedBytes, operations, streams } = endpoint.stats();
      const largest = Math.max(...distinct.sizes, ...single.sizes) + 200;
      maxHeld = Math.max(maxHeld, bufferedBytes);
      // each stream: its bound, plus one message per operation let in just below it
      maxAllowed = Math.max(maxAllowed, streams * STREAM_BOUND + operations * largest);
      expect(bufferedBytes).toBeLessThanOrEqual(streams * STREAM_BOUND + operations * largest);
    }
    const grown = heapAfterGc() - heapBefore;

    console.log(
      `held at most ${(maxHeld / 1e6).toFixed(1)} MB (allowed ${(maxAllowed / 1e6).toFixed(1)} MB); heap grew ${(grown / 1e6).toFixed(1)} MB`,
    );
    expect(maxHeld).toBeGreaterThan(20 * STREAM_BOUND); // the never-readers did fill their buffers
    expect(grown).toBeLessThan(64 * 1024 * 1024);

    // The slow readers now read: they get recent events, having lost the ones in between.
    const texts = await Promise.all(slow.map((s) => s.drain(1_500)));
    const latest = distinct.sequences.at(-1) as number;
    for (const text of texts) {
      const seen = sequencesIn(text);
      expect(gaps(seen)).toBeGreaterThan(0);
      expect(seen.at(-1) as number).toBeGreaterThan(latest - 10);
    }
    for (const s of slow) s.close();

    await distinct.stop();
    await single.stop();
    expectEveryEvent(distinct.sequences, 40);
    expectEveryEvent(single.sequences, 40);

    for (const s of sockets.splice(0)) s.destroy();
    await waitFor(
      () => endpoint.stats().streams === 0 && endpoint.stats().operations === 0,
      10_000,
      'everything closed',
    );
    expect(endpoint.stats().bufferedBytes).toBe(0);
  }, 60_000);
});

describe('all streams of a process together', () => {
  const TOTAL_BOUND = 1024 * 1024;
  let sys: RunningSystem;
  let unix: Awaited<ReturnType<typeof unixEntrance>>;
  const sockets: Socket[] = [];
  const readers: Array<{ stop(): Promise<void> }> = [];
  beforeAll(async () => {
    sys = await startSystem({
      LIVE_INTERVAL_MS: String(INTERVAL_MS),
      LIVE_MAX_STREAM_BUFFER_BYTES: String(STREAM_BOUND),
      LIVE_MAX_BUFFERED_BYTES: String(TOTAL_BOUND),
      LIVE_SLOW_CLIENT_TIMEOUT_MS: '600000',
      LIVE_MAX_CONNECTIONS_PER_CLIENT: '500',
    });
    unix = await unixEntrance(sys.system.app.server);
  }, 30_000);
  afterAll(async () => {
    for (const r of readers) await r.stop().catch(() => undefined);
    for (const s of sockets) s.destroy();
    await unix?.close();
    await sys?.close();
  });

  test('over LIVE_MAX_BUFFERED_BYTES the streams holding the most are disconnected; a fast reader keeps every event', async () => {
    const fast = fastReader(sys.url, false);
    readers.push(fast);
    await waitFor(() => fast.sequences.length > 2, 10_000, 'fast reader started');
    for (let i = 0; i < 10; i++) sockets.push(await neverReading(unix.path, STREAM_REQUEST));
    const buffers = sys.system.live.buffers;
    const until = Date.now() + 5_000;
    while (Date.now() < until) {
      await sleep(100);
      expect(buffers.bytes).toBeLessThanOrEqual(TOTAL_BOUND);
    }
    // 10 streams at 256 KiB each do not fit in 1 MiB: all but a few were disconnected, the largest first
    expect(buffers.slowDisconnects).toBeGreaterThanOrEqual(6);
    const metrics = await (await fetch(`${sys.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^live_slow_client_disconnects_total\{kind="graphql",limit="liveMaxBufferedBytes"\} ([6-9]|10)$/m,
    );
    await fast.stop();
    expectEveryEvent(fast.sequences, 30);
  }, 60_000);
});

describe('clients that do not read, on /v1/live', () => {
  const FRAME_BOUND = 16 * 1024;
  let sys: RunningSystem;
  let unix: Awaited<ReturnType<typeof unixEntrance>>;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    sys = await startSystem({
      LIVE_INTERVAL_MS: String(INTERVAL_MS),
      LIVE_MAX_STREAM_BUFFER_BYTES: String(FRAME_BOUND),
      LIVE_SLOW_CLIENT_TIMEOUT_MS: '600000',
      LIVE_MAX_CONNECTIONS_PER_CLIENT: '500',
    });
    unix = await unixEntrance(sys.system.app.server);
  }, 30_000);
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await unix?.close();
    await sys?.close();
  });

  test('20 never-reading streams hold at most their bound each (socket buffers included); a slow reader loses the oldest frames, a fast one gets every frame', async () => {
    const path = `/v1/live?tickers=${SIMULATED_TICKERS.slice(0, 40).join(',')}`;
    const fast = await openStream(`${sys.url}${path}`);
    try {
      expect(fast.status).toBe(200);
      await waitFor(() => dataFrames(fast.frames).length > 2, 10_000, 'fast reader started');
      for (let i = 0; i < 20; i++) sockets.push(await neverReading(unix.path, { method: 'GET', path }));
      const slow = await pausedResponse(`${sys.url}${path}`, { socketPath: unix.path });
      await waitFor(() => sys.system.live.buffers.streams === 22, 10_000, 'every stream open');

      // 12 s: a Unix socket's kernel buffer takes ~40 frames, then the stream's bound, then 64 more ticks queue in
      // the price hub before the slow reader loses any.
      let maxHeld = 0;
      const until = Date.now() + 12_000;
      while (Date.now() < until) {
        await sleep(200);
        const frame = Math.max(...dataFrames(fast.frames).map((f) => (f.data ?? '').length)) + 100;
        // what the server holds for these clients: its count, and independently the sockets' own buffers
        const inSockets = [...unix.sockets].reduce((sum, s) => sum + s.writableLength, 0);
        maxHeld = Math.max(maxHeld, inSockets);
        expect(inSockets).toBeLessThanOrEqual(21 * (FRAME_BOUND + frame));
        expect(sys.system.live.buffers.bytes).toBeLessThanOrEqual(22 * (FRAME_BOUND + frame));
      }
      expect(maxHeld).toBeGreaterThan(10 * FRAME_BOUND); // the never-readers did fill their buffers

      const ids = dataFrames(fast.frames).map((f) => Number(f.id));
      const seen = sequencesIn(await slow.drain(1_500));
      slow.close();
      expect(gaps(seen)).toBeGreaterThan(0);
      expect(seen.at(-1) as number).toBeGreaterThan((ids.at(-1) as number) - 10);
      const after = ids.slice(1);
      expect(after.length).toBeGreaterThan(40);
      expect(after).toEqual(after.map((_, i) => (after[0] as number) + i));
    } finally {
      fast.close();
    }
    for (const s of sockets.splice(0)) s.destroy();
    await waitFor(() => sys.system.live.buffers.streams === 0, 10_000, 'every stream closed');
    expect(sys.system.live.buffers.bytes).toBe(0);
  }, 60_000);
});

describe('single-connection reservations', () => {
  let sys: RunningSystem;
  beforeAll(async () => {
    sys = await startSystem({
      LIVE_INTERVAL_MS: String(INTERVAL_MS),
      LIVE_RESERVATION_TIMEOUT_MS: '500',
      LIVE_MAX_CONNECTIONS_PER_CLIENT: '3',
    });
  }, 30_000);
  afterAll(async () => {
    await sys?.close();
  });
  const reserve = async () => {
    const res = await fetch(`${sys.url}/graphql/stream`, { method: 'PUT' });
    return { status: res.status, token: await res.text() };
  };
  const PRICES = 'subscription { prices(tickers: ["AAPL:NASDAQ"]) { ticker price } }';
  const post = (token: string, id: string) =>
    fetch(`${sys.url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
      body: JSON.stringify({ query: PRICES, extensions: { operationId: id } }),
    });

  test('operations on a reservation whose stream is not open are refused with 409 and run nothing; once it is open they run', async () => {
    const endpoint = sys.system.live.endpoint;
    const hub = (sys.subgraphs.get('market') as unknown as { hub: { stats: { listeners: number } } }).hub;
    const { token } = await reserve();
    for (let i = 0; i < 20; i++) {
      const res = await post(token, `op${i}`);
      expect(res.status).toBe(409);
      const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
      expect(body.errors[0]?.message).toMatch(/open it first/);
      expect(body.errors[0]?.extensions.code).toBe('CONFLICT');
    }
    const get = await fetch(
      `${sys.url}/graphql/stream?query=${encodeURIComponent('{ quote(ticker: "AAPL:NASDAQ") { price } }')}&extensions=${encodeURIComponent('{"operationId":"q"}')}`,
      {
        headers: { 'x-graphql-event-stream-token': token },
      },
    );
    expect(get.status).toBe(409);
    expect(endpoint?.stats().operations).toBe(0);
    expect(hub.stats.listeners).toBe(0);

    const stream = await openStream(`${sys.url}/graphql/stream`, { 'x-graphql-event-stream-token': token });
    try {
      expect(stream.status).toBe(200);
      expect((await post(token, 'live')).status).toBe(202);
      await waitFor(
        () => stream.frames.some((f) => f.data?.includes('"id":"live"')),
        5_000,
        'an event on the opened stream',
      );
      expect(endpoint?.stats().operations).toBe(1);
    } finally {
      stream.close();
    }
    await waitFor(() => endpoint?.stats().operations === 0 && hub.stats.listeners === 0, 5_000, 'closed');
  });

  test('a reservation whose stream never opens expires (LIVE_RESERVATION_TIMEOUT_MS)', async () => {
    const { status, token } = await reserve();
    expect(status).toBe(201);
    expect(sys.system.live.endpoint?.stats().reservations).toBe(1);
    await waitFor(() => sys.system.live.endpoint?.stats().reservations === 0, 3_000, 'reservation expired');
    expect((await post(token, 'late')).status).toBe(404); // graphql-sse: stream not found
  });

  test('reservations per client address stay limited', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await reserve()).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    await waitFor(() => sys.system.live.endpoint?.stats().reservations === 0, 3_000, 'reservations expired');
  });
});
