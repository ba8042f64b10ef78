import { wholeListing, type ListingPage } from './whole-listing';

const record = (i: number) => ({ id: `id${i}`, name: `h${i}.z.test`, type: 'A', value: `192.0.2.${i}`, ttl: 300 });

/** Pages of `size` over records 0..total-1; `etagOf` gives the zone's version at each read. */
function pages(total: number, size: number, etagOf: (read: number) => string) {
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

test('the pages joined, in the listing’s shape, under the version they were all read at', async () => {
  const { read, cursors } = pages(7, 3, () => '"v1"');
  const whole = await wholeListing(read);
  expect(cursors).toEqual([null, '3', '6']);
  expect(whole).toEqual({
    etag: '"v1"',
    body: JSON.stringify({ zone: 'z.test', records: Array.from({ length: 7 }, (_, i) => record(i)) }),
  });
});

test('a zone that changed during the walk is walked again; one that keeps changing is answered uncached', async () => {
  const once = pages(5, 2, (read) => (read < 2 ? '"v1"' : '"v2"'));
  expect((await wholeListing(once.read)).etag).toBe('"v2"');
  expect(once.cursors).toEqual([null, '2', '4', null, '2', '4']); // the change seen at the third page
  const always = pages(5, 2, (read) => `"v${read}"`);
  const whole = await wholeListing(always.read);
  expect(whole.etag).toBeNull();
  expect(JSON.parse(whole.body)).toEqual({ zone: 'z.test', records: Array.from({ length: 5 }, (_, i) => record(i)) });
});

test('the walk stops between pages once its signal fires', async () => {
  const controller = new AbortController();
  const { read, cursors } = pages(100, 10, () => '"v1"');
  const reading = wholeListing(async (cursor) => {
    if (cursor === '30') controller.abort(new Error('the client went away'));
    return read(cursor);
  }, controller.signal);
  await expect(reading).rejects.toThrow('the client went away');
  expect(cursors).toEqual([null, '10', '20', '30']);
});
