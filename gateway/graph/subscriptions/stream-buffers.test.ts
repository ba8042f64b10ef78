import { EventEmitter } from 'node:events';
import { createLogger } from '../../../platform/log';
import { StreamBuffers, type SlowClientDisconnect } from './stream-buffers';

/** A response whose socket flushes only when the test says so (a client that does not read). */
class FakeResponse extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  write(chunk: string): boolean {
    this.writableLength += Buffer.byteLength(chunk);
    return false;
  }
  /** The client read everything: the socket is empty and says so with 'drain', as Node's does. */
  flush(): void {
    this.writableLength = 0;
    this.emit('drain');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

const log = createLogger('silent');
function setup(limits = { maxStreamBytes: 100, maxTotalBytes: 1_000, slowClientTimeoutMs: 60_000 }) {
  const disconnects: SlowClientDisconnect[] = [];
  const buffers = new StreamBuffers(limits, log, (e) => disconnects.push(e));
  const open = (client = 'c') => {
    const res = new FakeResponse();
    return { res, buffer: buffers.attach(res, client, 'test') };
  };
  return { buffers, disconnects, open };
}

describe('StreamBuffers', () => {
  test('bytes count from reservation or write until the socket flushes them (read from writableLength)', async () => {
    const { buffers, open } = setup();
    const { res, buffer } = open();
    expect(await buffer.reserve(30)).toBe(true);
    buffer.write('x'.repeat(30), true); // the reserved message: not counted twice
    buffer.write('yy'); // a ping: counted now
    expect(buffer.bytes).toBe(32);
    expect(buffers.bytes).toBe(32);
    res.flush();
    expect(buffer.bytes).toBe(0);
    expect(buffers.bytes).toBe(0);
  });

  test('over its bound a stream takes nothing until its client reads; then waiters in turn while below it', async () => {
    const { open } = setup();
    const { res, buffer } = open();
    buffer.write('x'.repeat(120));
    let taken = 0;
    const waiting = [buffer.reserve(60), buffer.reserve(60), buffer.reserve(60)].map((p) =>
      p.then((ok) => (ok && taken++, ok)),
    );
    await new Promise((r) => setImmediate(r));
    expect(taken).toBe(0);
    res.flush(); // 0 held: the first takes 60 (below 100, so the second is let in too: 120), the third waits
    await new Promise((r) => setImmediate(r));
    expect(taken).toBe(2);
    expect(buffer.bytes).toBe(120);
    buffer.write('x'.repeat(120), true);
    res.flush();
    expect(await Promise.all(waiting)).toEqual([true, true, true]);
    expect(buffer.bytes).toBe(60);
  });

  test('a stream stuck over its bound past the timeout is disconnected, named in the disconnect', async () => {
    const { buffers, disconnects, open } = setup({
      maxStreamBytes: 100,
      maxTotalBytes: 1_000,
      slowClientTimeoutMs: 50,
    });
    const { res, buffer } = open('10.0.0.1');
    buffer.write('x'.repeat(150));
    const waiter = buffer.reserve(10);
    await new Promise((r) => setTimeout(r, 120));
    expect(res.destroyed).toBe(true);
    expect(await waiter).toBe(false);
    expect(disconnects).toEqual([{ kind: 'test', client: '10.0.0.1', bytes: 150, limit: 'liveSlowClientTimeoutMs' }]);
    expect(buffers.bytes).toBe(0);
    expect(buffers.streams).toBe(0);
  });

  test('a stream that gets below its bound in time is not disconnected', async () => {
    const { disconnects, open } = setup({ maxStreamBytes: 100, maxTotalBytes: 1_000, slowClientTimeoutMs: 80 });
    const { res, buffer } = open();
    buffer.write('x'.repeat(150));
    await new Promise((r) => setTimeout(r, 30));
    res.flush();
    await new Promise((r) => setTimeout(r, 100));
    expect(res.destroyed).toBe(false);
    expect(disconnects).toEqual([]);
  });

  test('over the process bound the streams holding the most are disconnected first, until the rest fit', () => {
    const { buffers, disconnects, open } = setup({
      maxStreamBytes: 500,
      maxTotalBytes: 1_000,
      slowClientTimeoutMs: 60_000,
    });
    const a = open('a');
    const b = open('b');
    const c = open('c');
    a.buffer.write('x'.repeat(300));
    b.buffer.write('x'.repeat(450));
    c.buffer.write('x'.repeat(200)); // 950: fits
    expect(disconnects).toEqual([]);
    a.buffer.write('x'.repeat(100)); // 1 050: b, the largest, goes
    expect(disconnects.map((d) => [d.client, d.limit])).toEqual([['b', 'liveMaxBufferedBytes']]);
    expect(b.res.destroyed).toBe(true);
    expect(buffers.bytes).toBe(600);
    expect(buffers.streams).toBe(2);
  });

  test('a closed response frees its bytes and wakes its waiters with false', async () => {
    const { buffers, open } = setup();
    const { res, buffer } = open();
    buffer.write('x'.repeat(150));
    const waiter = buffer.reserve(10);
    res.emit('close');
    expect(await waiter).toBe(false);
    expect(buffers.bytes).toBe(0);
    res.flush(); // a late 'drain' changes nothing
    expect(buffers.bytes).toBe(0);
  });
});

test('a socket that empties without a drain event is noticed by the periodic look at waiting streams', async () => {
  const { open } = setup({ maxStreamBytes: 100, maxTotalBytes: 1_000, slowClientTimeoutMs: 60_000 });
  const { res, buffer } = open();
  buffer.write('x'.repeat(150));
  const waiter = buffer.reserve(10);
  res.writableLength = 0; // flushed silently (a socket under its high-water mark emits no 'drain')
  expect(await waiter).toBe(true);
  expect(buffer.bytes).toBe(10);
});
