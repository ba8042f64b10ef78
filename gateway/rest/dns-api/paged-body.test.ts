import { once } from 'node:events';
import { Writable } from 'node:stream';
import { PagedBody } from './paged-body';

/**
 * The body of a whole-zone read holds a page or two however slowly its client reads (each page is asked for once the
 * one before has left), and once destroyed asks for no page after the one it is reading.
 */
const PAGE = 256 * 1024;
const PAGES = 40;

/** A walk of PAGES pages, counting the pages it has read. */
function walk(onRead: (n: number) => Promise<void> = async () => {}) {
  const state = { read: 0, ended: false };
  async function* pages(): AsyncGenerator<Buffer, void> {
    try {
      for (let i = 0; i < PAGES; i++) {
        await onRead(i);
        state.read++;
        yield Buffer.alloc(PAGE, i % 256);
      }
    } finally {
      state.ended = true;
    }
  }
  return { state, chunks: pages() };
}

/** A client socket that takes a chunk only when the test says so. */
function slowClient() {
  const received: Buffer[] = [];
  let take: (() => void) | undefined;
  const client = new Writable({
    highWaterMark: 16 * 1024, // a socket's
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk);
      take = done;
    },
  });
  return {
    client,
    received,
    /** Resolves once a chunk waits to be taken, then takes it (false: the client has it all). */
    takeOne: async (): Promise<boolean> => {
      for (let turns = 0; !take; turns++) {
        if (client.writableFinished) return false;
        if (turns > 10_000) throw new Error('no chunk came');
        await new Promise((resolve) => setImmediate(resolve));
      }
      const done = take;
      take = undefined;
      done();
      return true;
    },
  };
}

test('a slow client: the walk holds at most two pages it has read and the client has not taken', async () => {
  const { state, chunks } = walk();
  const { client, received, takeOne } = slowClient();
  const body = new PagedBody(chunks);
  body.pipe(client);
  let most = 0;
  while (await takeOne()) {
    // pages read − pages the client took (the one being taken counts as taken)
    most = Math.max(most, state.read - received.length);
    // a few turns for the walk to read ahead if it would
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    most = Math.max(most, state.read - received.length);
  }
  expect(client.writableFinished).toBe(true);
  expect(received).toHaveLength(PAGES);
  expect(received.every((chunk, i) => chunk.length === PAGE && chunk[0] === i % 256)).toBe(true);
  expect(most).toBeLessThanOrEqual(2);
  expect(state.ended).toBe(true);
});

test('destroyed at a page boundary, the walk reads no page more', async () => {
  const { state, chunks } = walk();
  const { client, takeOne } = slowClient();
  const body = new PagedBody(chunks);
  body.pipe(client);
  for (let i = 0; i < 5; i++) await takeOne();
  const read = state.read;
  body.destroy();
  for (let i = 0; i < 50 && !state.ended; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(state.ended).toBe(true);
  expect(state.read).toBe(read);
});

test('destroyed while a page is being read, the walk stops after that page', async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let reading = () => {};
  const readingFourth = new Promise<void>((resolve) => (reading = resolve));
  const { state, chunks } = walk(async (n) => {
    if (n === 3) {
      reading();
      await held;
    }
  });
  const body = new PagedBody(chunks);
  body.resume(); // a client reading as fast as it can
  await readingFourth;
  body.destroy();
  release();
  for (let i = 0; i < 50 && !state.ended; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(state.ended).toBe(true);
  expect(state.read).toBe(4); // the page being read, and none after it
});

test('a walk that fails destroys the body with its error', async () => {
  async function* failing(): AsyncGenerator<Buffer, void> {
    yield Buffer.from('first');
    throw new Error('the zone changed');
  }
  const body = new PagedBody(failing());
  body.resume();
  const [err] = (await once(body, 'error')) as [Error];
  expect(err.message).toBe('the zone changed');
});
