import { closeReason, initAuthorization } from './ws-endpoint';

describe('closeReason: what a WebSocket close frame may carry (at most 123 bytes of UTF-8)', () => {
  test('a short reason is kept as it is', () => {
    expect(closeReason('too many live connections (liveMaxConnections)')).toBe(
      'too many live connections (liveMaxConnections)',
    );
  });

  test.each([
    ['ASCII', 'x'.repeat(200)],
    ['multi-byte characters', 'ğ'.repeat(100)],
    [
      'an IPv6 address in a limit message',
      `too many live connections from ${'ffff:'.repeat(8)}: at most 100 per client address (liveMaxConnectionsPerClient)`,
    ],
  ])('a longer one (%s) is cut to fit, marked with ...', (_label, text) => {
    const reason = closeReason(text);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
    expect(reason.endsWith('...')).toBe(true);
    expect(text.startsWith(reason.slice(0, -3))).toBe(true);
  });
});

describe('initAuthorization: the credential of a connection_init payload', () => {
  test.each([
    [undefined, undefined],
    [{}, undefined],
    [{ Authorization: 'Bearer a' }, 'Bearer a'],
    [{ authorization: 'Bearer b' }, 'Bearer b'],
    [{ Authorization: 'Bearer a', authorization: 'Bearer b' }, 'Bearer a'],
    [{ Authorization: null }, undefined],
    [{ Authorization: 42 }, null],
    [{ authorization: { token: 'x' } }, null],
  ])('%j → %j (null: not a string, the socket is refused)', (payload, expected) => {
    expect(initAuthorization(payload)).toBe(expected);
  });
});
