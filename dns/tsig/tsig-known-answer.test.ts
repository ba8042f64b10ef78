import { parseKeyFile } from './keyfile';
import { parseTsig, signMessage, verifyMessage } from './tsig';

/**
 * Known answers from another implementation: queries signed by BIND 9's `dig -y` (captured on the wire once, kept
 * here as bytes). Our verifier accepts them at the time they were signed, and our signer, given the same message and
 * time, writes the same MAC byte for byte — HMAC input, key and algorithm names, timers and all (RFC 8945 §4.3).
 */
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
const CASES = [
  {
    algorithm: 'hmac-sha256',
    keyName: 'kat-key',
    hex:
      'd1700120000100000000000203777777076578616d706c650474657374000001000100002904d000000000000c000a0008822c90a8cce32e2b' +
      '076b61742d6b65790000fa00ff00000000003d0b686d61632d7368613235360000006b04e294012c00202d9c5c10eb717671ff367d6cdee3' +
      '4a588f18a41789045f5f36331d32e0307602d17000000000',
  },
  {
    algorithm: 'hmac-sha512',
    keyName: 'kat-key-512',
    hex:
      'f6300120000100000000000203777777076578616d706c650474657374000001000100002904d000000000000c000a00082191b9e93f58d05d' +
      '0b6b61742d6b65792d3531320000fa00ff00000000005d0b686d61632d7368613531320000006b04e294012c004073e0d63234afef760c9339' +
      '05db5a6a81e22316f8d2cf86547cefdace5c4c74bf0f84a052abe359587a4f590baf2babbc4fce00b6c20b212835a2a2e39e73c8edf63000000000',
  },
];

describe.each(CASES)('a query signed by BIND 9 dig with $algorithm', ({ algorithm, keyName, hex }) => {
  const wire = Buffer.from(hex, 'hex');
  const [key] = parseKeyFile(`key "${keyName}" { algorithm ${algorithm}; secret "${SECRET}"; };`);
  if (!key) throw new Error('the test key did not parse');
  const tsig = parseTsig(wire);
  if (!tsig) throw new Error('the captured query has no TSIG');

  test('verifies with the key at the time it was signed', () => {
    expect(tsig).toMatchObject({ keyName, algorithm, fudge: 300, error: 0 });
    expect(verifyMessage(wire, new Map([[key.name, key]]), { now: tsig.timeSigned }).status).toBe('ok');
  });

  test('our signer writes the same bytes from the unsigned message and the same time', () => {
    const unsigned = Buffer.from(wire.subarray(0, tsig.offset));
    unsigned.writeUInt16BE(wire.readUInt16BE(10) - 1, 10);
    const ours = signMessage(unsigned, key, { timeSigned: tsig.timeSigned, fudge: tsig.fudge });
    expect(ours.message.toString('hex')).toBe(hex);
  });

  test('a changed byte, a wrong secret or a late clock is refused (BADSIG, BADTIME)', () => {
    const tampered = Buffer.from(wire);
    tampered.writeUInt8(tampered.readUInt8(20) ^ 1, 20);
    expect(verifyMessage(tampered, new Map([[key.name, key]]), { now: tsig.timeSigned })).toMatchObject({ error: 16 });
    const wrong = { ...key, secret: Buffer.from('another secret') };
    expect(verifyMessage(wire, new Map([[key.name, wrong]]), { now: tsig.timeSigned })).toMatchObject({ error: 16 });
    expect(verifyMessage(wire, new Map([[key.name, key]]), { now: tsig.timeSigned + 301 })).toMatchObject({
      error: 18,
    });
  });
});
