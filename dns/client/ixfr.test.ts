import { IxfrReader, type Incremental } from './ixfr';
import type { ClientRecord } from './records';

const soa = (serial: number): ClientRecord => ({
  name: 'z.test',
  type: 'SOA',
  ttl: 300,
  value: `ns1.z.test. hostmaster.z.test. ${serial} 3600 600 86400 60`,
});
const a = (name: string, value: string): ClientRecord => ({ name: `${name}.z.test`, type: 'A', ttl: 60, value });

/** Feeds `messages` (records per message) as the client's stream does; the result once the reader says done. */
function read(held: number, messages: ClientRecord[][]): Incremental {
  const reader = new IxfrReader(held, (why) => new Error(why));
  for (const message of messages) {
    for (const record of message) if (reader.add(record)) return reader.result();
    if (reader.endOfMessage()) return reader.result();
  }
  return reader.result();
}

test('the SOA alone, no newer than the serial held: current', () => {
  expect(read(5, [[soa(5)]])).toEqual({ kind: 'current', soa: soa(5) });
});

test('a newer SOA alone in the first message is the start of a transfer, not the end', () => {
  expect(read(5, [[soa(6)], [a('www', '192.0.2.1'), soa(6)]])).toEqual({
    kind: 'full',
    soa: soa(6),
    records: [a('www', '192.0.2.1')],
  });
});

test('AXFR form: every record between the two SOAs', () => {
  expect(read(5, [[soa(9), a('a', '192.0.2.1'), a('b', '192.0.2.2'), soa(9)]])).toMatchObject({
    kind: 'full',
    records: [a('a', '192.0.2.1'), a('b', '192.0.2.2')],
  });
});

test('steps: old SOA, deletions, new SOA, additions, ending with the newest SOA again', () => {
  const result = read(5, [
    [soa(7), soa(5), a('old', '192.0.2.1'), soa(6), a('new', '192.0.2.2')],
    [soa(6), soa(7), a('newer', '192.0.2.3'), soa(7)],
  ]);
  expect(result).toEqual({
    kind: 'incremental',
    soa: soa(7),
    steps: [
      { from: soa(5), to: soa(6), deleted: [a('old', '192.0.2.1')], added: [a('new', '192.0.2.2')] },
      { from: soa(6), to: soa(7), deleted: [], added: [a('newer', '192.0.2.3')] },
    ],
  });
});

test('an answer that does not start with the SOA, or ends early, is an error', () => {
  expect(() => read(5, [[a('www', '192.0.2.1')]])).toThrow(/does not start with the SOA \(A\)/);
  expect(() => read(5, [[soa(7), soa(5), a('old', '192.0.2.1')]])).toThrow(/an incomplete IXFR answer/);
});
