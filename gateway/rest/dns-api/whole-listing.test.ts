import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SharedPages } from './shared-pages';
import { wholeFile, wholeListing, type ListingPage, type WholeRead } from './whole-listing';

const record = (i: number) => ({
  id: `id${i}`,
  name: `h${i}.z.test`,
  type: 'A',
  value: `192.0.2.${i % 256}`,
  ttl: 300,
});

/** Pages of `size` over records 0..total-1; `etagOf` gives the zone's version at each read. */
function pages(total: number, size: number, etagOf: (read: number) => string = () => '"v1"') {
  const cursors: Array<string | null> = [];
  const read = async (cursor: string | null): Promise<ListingPage> => {
    cursors.push(cursor);
    const from = cursor === null ? 0 : Number(cursor);
    const to = Math.min(total, from + size);
    return {
      etag: etagOf(cursors.length - 1),
      zone: 'z.test',
      nextCursor: to < total ? String(to) : null,
      records: Array.from({ length: to - from }, (_, i) => record(from + i)),
    };
  };
  return { read, cursors };
}

async function text(whole: WholeRead): Promise<string> {
  if ('body' in whole) return whole.body;
  const parts: Buffer[] = [];
  await pipeline(
    whole.stream,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        parts.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(parts).toString('utf8');
}

const listing = (read: (cursor: string | null) => Promise<ListingPage>, shared = new SharedPages(), start = null) =>
  wholeListing({ version: '"v1"', type: undefined, start, read, shared });

test('a listing of many pages is streamed: the same bytes as the whole listing rendered at once', async () => {
  const { read, cursors } = pages(3_001, 250);
  const whole = await listing(read);
  expect('stream' in whole).toBe(true);
  const expected = JSON.stringify({ zone: 'z.test', records: Array.from({ length: 3_001 }, (_, i) => record(i)) });
  expect((await text(whole)) === expected).toBe(true);
  expect(cursors).toHaveLength(13);
});

test('a listing of one page is one body, with the version it was read at (none when the zone changed since)', async () => {
  const one = await listing(pages(7, 10).read);
  expect(one).toEqual({
    body: JSON.stringify({ zone: 'z.test', records: Array.from({ length: 7 }, (_, i) => record(i)) }),
    etag: '"v1"',
  });
  expect(await listing(pages(0, 10).read)).toEqual({ body: '{"zone":"z.test","records":[]}', etag: '"v1"' });
  const changed = await listing(pages(7, 10, () => '"v2"').read);
  expect('body' in changed && changed.etag).toBeNull();
});

test('empty pages between others add no separator; a walk from a cursor starts there', async () => {
  const read = async (cursor: string | null): Promise<ListingPage> => {
    const at = cursor === null ? 0 : Number(cursor);
    const records = at === 1 || at === 3 ? [] : [record(at)];
    return { etag: '"v1"', zone: 'z.test', nextCursor: at < 4 ? String(at + 1) : null, records };
  };
  expect(await text(await listing(read))).toBe(JSON.stringify({ zone: 'z.test', records: [0, 2, 4].map(record) }));
  expect(
    await text(await wholeListing({ version: '"v1"', type: undefined, start: '2', read, shared: new SharedPages() })),
  ).toBe(JSON.stringify({ zone: 'z.test', records: [2, 4].map(record) }));
});

test('walks of one zone version at once read each page once; a page read at another version is not shared', async () => {
  const shared = new SharedPages();
  const { read, cursors } = pages(1_000, 100);
  const bodies = await Promise.all(Array.from({ length: 5 }, async () => text(await listing(read, shared))));
  expect(new Set(bodies).size).toBe(1);
  expect(cursors).toHaveLength(10);
  expect(shared.counts).toEqual({ read: 10, shared: 40 });
  // another version's walk reads for itself
  await text(await wholeListing({ version: '"v2"', type: undefined, start: null, read, shared }));
  expect(cursors).toHaveLength(20);
  // pages read after the zone changed are the walk's own: the next walk of "v3" reads them again
  const changed = pages(300, 100, (n) => (n === 0 ? '"v3"' : '"v4"'));
  const v3 = () => wholeListing({ version: '"v3"', type: undefined, start: null, read: changed.read, shared });
  await text(await v3());
  await text(await v3());
  expect(changed.cursors).toEqual([null, '100', '200', '100', '200']);
});

test('a walk that awaited a page another walk failed to read reads it for itself', async () => {
  const shared = new SharedPages();
  let fail = true;
  const { read } = pages(10, 5);
  const failing = async (cursor: string | null) => {
    await Promise.resolve();
    if (fail) {
      fail = false;
      throw new Error('that caller may not');
    }
    return read(cursor);
  };
  const [first, second] = await Promise.allSettled([listing(failing, shared), listing(read, shared)]);
  expect(first).toMatchObject({ status: 'rejected', reason: new Error('that caller may not') });
  expect(second.status).toBe('fulfilled');
});

test('a whole-zone read changed after its first page: the walk of the listing goes on, the export is cut off', async () => {
  // a listing: a record added at the front after the first page — every record there throughout is in it once
  const records = Array.from({ length: 6 }, (_, i) => record(i + 1));
  const read = async (cursor: string | null): Promise<ListingPage> => {
    const from = cursor === null ? 0 : Number(cursor);
    if (from > 0) records.unshift(record(0)); // positions shift: the walk sees a record again, never misses one
    return {
      etag: from > 0 ? '"v2"' : '"v1"',
      zone: 'z.test',
      nextCursor: from + 3 < records.length ? String(from + 3) : null,
      records: records.slice(from, from + 3),
    };
  };
  const body = JSON.parse(await text(await listing(read))) as { records: Array<{ id: string }> };
  const ids = body.records.map((r) => r.id);
  for (let i = 1; i <= 6; i++) expect(ids).toContain(`id${i}`);
  // an export: the page after the change fails, and so does the stream (the client sees it cut off)
  const file = await wholeFile({
    zone: 'z.test',
    version: '"v1"',
    shared: new SharedPages(),
    read: async (cursor) => {
      if (cursor !== null) throw new Error('zone z.test changed while it was exported');
      return { text: '$ORIGIN z.test.\n', nextCursor: 'next' };
    },
  });
  await expect(text(file)).rejects.toThrow('changed while it was exported');
});

test('an export of many pages is streamed: the pages joined; of one page, one body', async () => {
  const texts = Array.from({ length: 30 }, (_, i) => `h${i}\t\tIN\tA\t192.0.2.${i}\n`);
  const read = async (cursor: string | null) => {
    const at = cursor === null ? 0 : Number(cursor);
    return { text: texts[at] ?? '', nextCursor: at + 1 < texts.length ? String(at + 1) : null };
  };
  const shared = new SharedPages();
  const file = await wholeFile({ zone: 'z.test', version: '"v1"', shared, read });
  expect(await text(file)).toBe(texts.join(''));
  // a second walk of "v1" takes every page the first one kept
  const again = await wholeFile({
    zone: 'z.test',
    version: '"v1"',
    shared,
    read: () => Promise.reject(new Error('not read again')),
  });
  expect(await text(again)).toBe(texts.join(''));
  const one = await wholeFile({
    zone: 'z.test',
    version: '"v2"',
    shared,
    read: async () => ({ text: 'x\n', nextCursor: null }),
  });
  expect(one).toEqual({ body: 'x\n', etag: null });
});
