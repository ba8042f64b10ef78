import { mapStream, PushStream } from './async-streams';

describe('PushStream', () => {
  test('delivers pushed values in order, then ends; onClose runs once', async () => {
    let closed = 0;
    const s = new PushStream<number>(() => closed++);
    s.push(1);
    s.push(2);
    const pending = s.next();
    s.end();
    expect(await pending).toEqual({ done: false, value: 1 });
    expect(await s.next()).toEqual({ done: false, value: 2 });
    expect(await s.next()).toEqual({ done: true, value: undefined });
    await s.return();
    expect(closed).toBe(1);
  });

  test('return() wakes a waiting consumer and frees the source at once', async () => {
    let closed = 0;
    const s = new PushStream<number>(() => closed++);
    const waiting = s.next();
    await s.return();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(closed).toBe(1);
    s.push(3); // ignored after close
    expect(await s.next()).toEqual({ done: true, value: undefined });
  });

  test('an error ends the stream after the queued values', async () => {
    const s = new PushStream<number>();
    const waiting = s.next();
    s.end(new Error('boom'));
    await expect(waiting).rejects.toThrow('boom');
    const t = new PushStream<number>();
    t.push(1);
    t.end(new Error('late'));
    expect(await t.next()).toEqual({ done: false, value: 1 });
    await expect(t.next()).rejects.toThrow('late');
  });

  test('a slow consumer loses the oldest values beyond maxQueued', async () => {
    const s = new PushStream<number>(undefined, 2);
    for (const v of [1, 2, 3]) s.push(v);
    expect(await s.next()).toEqual({ done: false, value: 2 });
  });

  test('a slow consumer loses the oldest values beyond maxBytes; the newest always stays', async () => {
    const s = new PushStream<string>(undefined, { maxQueued: 100, maxBytes: 10, sizeOf: (v) => v.length });
    for (const v of ['aaaa', 'bbbb', 'cccc']) s.push(v); // 12 bytes: the oldest goes
    expect(s.bytes).toBe(8);
    expect(await s.next()).toEqual({ done: false, value: 'bbbb' });
    expect(s.bytes).toBe(4);
    s.push('x'.repeat(50)); // larger than the bound alone: kept, everything older dropped
    expect(s.bytes).toBe(50);
    expect(await s.next()).toEqual({ done: false, value: 'x'.repeat(50) });
    expect(s.bytes).toBe(0);
  });

  test('values handed straight to a waiting consumer are never sized', async () => {
    let sized = 0;
    const s = new PushStream<string>(undefined, { maxBytes: 10, sizeOf: (v) => (sized++, v.length) });
    const pending = s.next();
    s.push('abc');
    expect(await pending).toEqual({ done: false, value: 'abc' });
    expect(sized).toBe(0);
  });
});

describe('mapStream', () => {
  test('maps values and runs cleanup once when the consumer returns before pulling anything', async () => {
    const source = new PushStream<number>();
    let cleaned = 0;
    const mapped = mapStream(
      source,
      (v) => v * 10,
      () => cleaned++,
    );
    await mapped.return();
    await mapped.return();
    expect(cleaned).toBe(1);
    expect(source.isClosed).toBe(true);
  });

  test('maps in order and cleans up when the source ends', async () => {
    const source = new PushStream<number>();
    let cleaned = 0;
    const mapped = mapStream(
      source,
      async (v) => v + 1,
      () => cleaned++,
    );
    source.push(1);
    source.push(2);
    source.end();
    const seen: number[] = [];
    for await (const v of mapped) seen.push(v);
    expect(seen).toEqual([2, 3]);
    expect(cleaned).toBe(1);
  });
});
