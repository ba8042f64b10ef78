import { DnsClientError } from './errors';
import { frameMessage, splitFrames } from './transport';

describe('TCP framing (RFC 1035 §4.2.2)', () => {
  test('a message gets its length as a 2-byte prefix; one too long for the prefix is refused', () => {
    expect(frameMessage(Buffer.from('abc')).toString('hex')).toBe('0003616263');
    expect(frameMessage(Buffer.alloc(0)).toString('hex')).toBe('0000');
    expect(frameMessage(Buffer.alloc(65_535)).readUInt16BE(0)).toBe(65_535);
    expect(() => frameMessage(Buffer.alloc(65_536))).toThrow(DnsClientError);
  });

  test('a stream splits into its whole messages and the bytes of the one not yet whole', () => {
    const stream = Buffer.concat([
      frameMessage(Buffer.from('one')),
      frameMessage(Buffer.alloc(0)),
      Buffer.from([0, 5, 1]),
    ]);
    const { messages, rest } = splitFrames(stream);
    expect(messages.map((m) => m.toString('latin1'))).toEqual(['one', '']);
    expect(rest.toString('hex')).toBe('000501');
    // the rest completed by what comes next
    const next = splitFrames(Buffer.concat([rest, Buffer.from([2, 3, 4, 5]), Buffer.from([0])]));
    expect(next.messages.map((m) => m.toString('hex'))).toEqual(['0102030405']);
    expect(next.rest.toString('hex')).toBe('00');
    expect(splitFrames(Buffer.alloc(0))).toEqual({ messages: [], rest: Buffer.alloc(0) });
  });
});
