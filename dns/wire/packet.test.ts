import type { Answer } from 'dns-packet';
import {
  answerLength,
  decodeAnswer,
  decodeName,
  decodeQuestion,
  encodeAnswer,
  encodeMessage,
  encodeName,
  messageLength,
  typeName,
} from './packet';

const MX: Answer = {
  name: 'example.com',
  type: 'MX',
  ttl: 300,
  class: 'IN',
  data: { preference: 10, exchange: 'mail.example.com' },
};

describe('dns-packet adapter', () => {
  it('encodes one record as it appears in a message, and says how long it is', () => {
    const wire = encodeAnswer(MX);
    expect(wire).not.toBeNull();
    expect(wire?.length).toBe(answerLength(MX));
    const message = encodeMessage({ type: 'response', id: 1, answers: [MX] });
    expect(message.length).toBe(messageLength({ type: 'response', id: 1, answers: [MX] }));
    // the record is the message's bytes after the 12-byte header
    expect(message.subarray(12).equals(wire as Buffer)).toBe(true);
  });

  it('decodes a record and reports the bytes it took', () => {
    const wire = Buffer.concat([Buffer.from([0xff]), encodeAnswer(MX) as Buffer]);
    const { value, bytes } = decodeAnswer(wire, 1);
    expect(bytes).toBe(wire.length - 1);
    expect(value).toMatchObject({
      name: 'example.com',
      type: 'MX',
      ttl: 300,
      data: { preference: 10, exchange: 'mail.example.com' },
    });
  });

  it('encodes and decodes names, following compression pointers', () => {
    expect(encodeName('a.bc')).toEqual(Buffer.from([1, 0x61, 2, 0x62, 0x63, 0]));
    expect(encodeName('.')).toEqual(Buffer.from([0]));
    // "x" then a pointer to offset 0 ("a.bc")
    const buf = Buffer.from([1, 0x61, 2, 0x62, 0x63, 0, 1, 0x78, 0xc0, 0x00]);
    expect(decodeName(buf, 6)).toEqual({ value: 'x.a.bc', bytes: 4 });
    expect(decodeName(Buffer.from([0]), 0)).toEqual({ value: '.', bytes: 1 });
  });

  it('decodes a question', () => {
    const buf = Buffer.from([1, 0x61, 0, 0, 28, 0, 1]);
    expect(decodeQuestion(buf, 0)).toEqual({ value: { name: 'a', type: 'AAAA', class: 'IN' }, bytes: 7 });
  });

  it('throws on a name that runs past the buffer', () => {
    expect(() => decodeName(Buffer.from([5, 0x61]), 0)).toThrow();
  });

  it('names types as dns-packet does, unknown ones included', () => {
    expect(typeName(1)).toBe('A');
    expect(typeName(255)).toBe('ANY');
    expect(typeName(65_280)).toBe('UNKNOWN_65280');
  });
});
