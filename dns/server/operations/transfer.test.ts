/**
 * Zone transfers as the server streams them (ZoneTransfers): the messages zoneTransfer gives, each transfer with
 * its own query ID and its own buffers, one encoding shared by transfers that start together and read no faster
 * than the furthest reader, and an IXFR of a client that is up to date answered with the SOA alone.
 */
import type { DecodedPacket, SoaAnswer } from 'dns-packet';
import type { RecordData } from '../../model/model';
import { ZoneBuilder } from '../../zone/zone-index';
import { collectReplies, type Replies } from '../pipeline/replies';
import { zoneTransfer, ZoneTransfers } from './transfer';

const ZONE = 'xfr.test';
const soa: SoaAnswer = {
  name: ZONE,
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: 9, refresh: 1, retry: 2, expire: 3, minimum: 60 },
};

function zone(names: number) {
  const builder = new ZoneBuilder(ZONE, soa);
  const records: RecordData[] = [];
  for (let i = 0; i < names; i++)
    records.push({
      name: `h${String(i).padStart(4, '0')}.${ZONE}`,
      type: 'A',
      ttl: 300,
      value: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
    });
  for (const r of records) builder.add(r);
  return builder.finish();
}

const query = (id: number, type: 'AXFR' | 'IXFR' = 'AXFR', serial?: number): DecodedPacket =>
  ({
    type: 'query',
    id,
    flags: 0,
    questions: [{ name: ZONE, type, class: 'IN' }],
    authorities: serial === undefined ? [] : [{ ...soa, data: { ...soa.data, serial } }],
  }) as unknown as DecodedPacket;

const hex = (messages: Buffer[]): string[] => messages.map((m) => m.toString('hex'));
const all = collectReplies;

it('gives the messages zoneTransfer gives, with each transfer its own ID and buffers', async () => {
  const data = zone(2500);
  const transfers = new ZoneTransfers();
  const [a, b] = await Promise.all([all(transfers.transfer(query(7), data)), all(transfers.transfer(query(8), data))]);
  expect(a.length).toBeGreaterThan(10);
  expect(hex(a)).toEqual(hex(zoneTransfer(query(7), data)));
  expect(hex(b)).toEqual(hex(zoneTransfer(query(8), data)));
  expect(a[0]).not.toBe(b[0]);
  // signed transfers leave room for the TSIG record: asked the other way, not shared with the unsigned ones
  const signed = await all(transfers.transfer(query(9), data, true));
  expect(hex(signed)).toEqual(hex(zoneTransfer(query(9), data, true)));
});

it('answers an IXFR of a client with this serial or a newer one with the SOA alone', async () => {
  const data = zone(10);
  const transfers = new ZoneTransfers();
  const upToDate = await all(transfers.transfer(query(1, 'IXFR', 9), data));
  expect(upToDate).toHaveLength(1);
  expect(upToDate[0]?.length).toBeLessThan(200); // the SOA alone
  const behind = await all(transfers.transfer(query(2, 'IXFR', 8), data));
  expect(hex(behind)).toEqual(hex(zoneTransfer(query(2, 'IXFR', 8), data)));
  expect(behind[0]?.length).toBeGreaterThan(300); // every record
});

/** The first `n` messages of a stream, leaving it open. */
async function take(replies: Replies, n: number): Promise<{ got: Buffer[]; it: AsyncIterator<Buffer> }> {
  const it = (replies as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const got: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const next = await it.next();
    if (next.done) break;
    got.push(next.value);
  }
  return { got, it };
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

it('makes a transfer no further ahead than its reader: a client that stops reading holds a bounded part', async () => {
  // 80 000 names: 800 messages, 1.8 MB; the encoding may run 512 KB ahead of the reader
  const data = zone(80_000);
  const whole = zoneTransfer(query(1), data);
  const transfers = new ZoneTransfers({ stepMs: 1000 });
  const { got, it } = await take(transfers.transfer(query(1), data), 3);
  await turns(50); // time to encode everything, were it not held back
  expect(hex(got)).toEqual(hex(whole.slice(0, 3)));
  const held = (transfers as unknown as { shared: WeakMap<object, Map<string, { messages: Buffer[] }>> }).shared
    .get(data)
    ?.values()
    .next().value?.messages;
  const bytes = (held ?? []).reduce((sum, m) => sum + m.length, 0);
  expect(held?.length).toBeGreaterThan(0);
  expect(bytes).toBeLessThan(700 * 1024);
  expect(bytes).toBeLessThan(whole.reduce((sum, m) => sum + m.length, 0) / 3);
  // the rest comes as it is read, exactly as the whole transfer
  const rest: Buffer[] = [];
  for (let next = await it.next(); !next.done; next = await it.next()) rest.push(next.value);
  expect(hex([...got, ...rest])).toEqual(hex(whole));
});

it('shares one encoding between transfers that start together, and with one asked while its start is kept', async () => {
  const data = zone(40_000);
  const whole = hex(zoneTransfer(query(0), data)).map((m) => m.slice(4)); // without the ID
  const transfers = new ZoneTransfers({ stepMs: 1000 });
  const first = await take(transfers.transfer(query(1), data), 1);
  const second = await take(transfers.transfer(query(2), data), 1);
  const a = await take({ [Symbol.asyncIterator]: () => first.it }, 200);
  // the first 200 messages (~450 KB) were read by both, but are kept: a transfer asked now joins all the same
  const third = await all(transfers.transfer(query(3), data));
  expect(transfers.encodings).toBe(1);
  const b = await take({ [Symbol.asyncIterator]: () => second.it }, 200);
  expect(hex(third).map((m) => m.slice(4))).toEqual(whole);
  expect(hex([...first.got, ...a.got]).map((m) => m.slice(4))).toEqual(whole.slice(0, 201));
  expect(hex([...second.got, ...b.got]).map((m) => m.slice(4))).toEqual(whole.slice(0, 201));
  expect([...first.got, ...a.got].every((m) => m.readUInt16BE(0) === 1)).toBe(true);
  expect([...second.got, ...b.got].every((m) => m.readUInt16BE(0) === 2)).toBe(true);
  // both leave early: the encoding stops and is forgotten
  const map = (transfers as unknown as { shared: WeakMap<object, Map<string, object>> }).shared.get(data);
  await first.it.return?.();
  await second.it.return?.();
  await turns(5);
  expect(map?.size).toBe(0);
});

it('drops what every reader passed beyond the bytes it keeps: a transfer asked after that gets its own', async () => {
  const data = zone(40_000);
  const whole = hex(zoneTransfer(query(0), data)).map((m) => m.slice(4));
  const transfers = new ZoneTransfers({ stepMs: 1000, holdBytes: 64 * 1024 });
  const first = await take(transfers.transfer(query(1), data), 100);
  const second = await all(transfers.transfer(query(2), data));
  expect(transfers.encodings).toBe(2);
  expect(hex(second).map((m) => m.slice(4))).toEqual(whole);
  const rest = await all({ [Symbol.asyncIterator]: () => first.it });
  expect(hex([...first.got, ...rest]).map((m) => m.slice(4))).toEqual(whole);
});

it('ends the stream with the error when a record is too large for any message', async () => {
  const builder = new ZoneBuilder(ZONE, soa);
  builder.add({
    name: `big.${ZONE}`,
    type: 'TXT',
    ttl: 300,
    value: Array(255)
      .fill(`"${'x'.repeat(254)}"`)
      .join(' '),
  });
  const data = builder.finish();
  // the record fits a message, but not with a TSIG record besides
  await expect(all(new ZoneTransfers().transfer(query(1), data, true))).rejects.toThrow(/too large for a DNS message/);
});
