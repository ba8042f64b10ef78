/**
 * Zone transfers as the engine serves them (ZoneTransfers): the messages zoneTransfer gives, each transfer with
 * its own query ID and its own buffers, and an IXFR of a client that is up to date answered with the SOA alone.
 */
import type { DecodedPacket, SoaAnswer } from 'dns-packet';
import type { RecordData } from '../../model/model';
import { ZoneBuilder } from '../../zone/zone-index';
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
      value: `10.0.${i >> 8}.${i & 255}`,
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

it('gives the messages zoneTransfer gives, with each transfer its own ID and buffers', async () => {
  const data = zone(2500);
  const transfers = new ZoneTransfers();
  const [a, b] = await Promise.all([transfers.transfer(query(7), data), transfers.transfer(query(8), data)]);
  expect(a.length).toBeGreaterThan(10);
  expect(a.map((m) => m.toString('hex'))).toEqual(zoneTransfer(query(7), data).map((m) => m.toString('hex')));
  expect(b.map((m) => m.toString('hex'))).toEqual(zoneTransfer(query(8), data).map((m) => m.toString('hex')));
  expect(a[0]).not.toBe(b[0]);
  // signed transfers leave room for the TSIG record: asked the other way, not shared with the unsigned ones
  const signed = await transfers.transfer(query(9), data, true);
  expect(signed.map((m) => m.toString('hex'))).toEqual(
    zoneTransfer(query(9), data, true).map((m) => m.toString('hex')),
  );
});

it('answers an IXFR of a client with this serial or a newer one with the SOA alone', async () => {
  const data = zone(10);
  const transfers = new ZoneTransfers();
  const hex = (messages: Buffer[]): string[] => messages.map((m) => m.toString('hex'));
  const upToDate = await transfers.transfer(query(1, 'IXFR', 9), data);
  expect(upToDate).toHaveLength(1);
  expect(upToDate[0]?.length).toBeLessThan(200); // the SOA alone
  const behind = await transfers.transfer(query(2, 'IXFR', 8), data);
  expect(hex(behind)).toEqual(hex(zoneTransfer(query(2, 'IXFR', 8), data)));
  expect(behind[0]?.length).toBeGreaterThan(300); // every record
});
