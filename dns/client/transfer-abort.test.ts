import { startEndlessTransferServer, type EndlessTransferServer } from '../../test/support/endless-transfer';
import { DnsClient } from './client';

/** A zone transfer stops when its caller's signal fires: the connection closes, the server stops sending. */
let server: EndlessTransferServer;
beforeAll(async () => {
  server = await startEndlessTransferServer();
});
afterAll(async () => server.close());

test('a transfer in progress closes its connection when the signal fires, and fails saying it was abandoned', async () => {
  const caller = new AbortController();
  const transfer = new DnsClient({ server: server.address, timeoutMs: 60_000 }).transfer('slow.test', {
    signal: caller.signal,
  });
  const failed = transfer.catch((err: unknown) => err);
  const sending = await server.nextTransfer();
  caller.abort(new Error('nobody waits'));
  expect(await failed).toMatchObject({
    kind: 'aborted',
    message: expect.stringMatching(/^the exchange with 127\.0\.0\.1#\d+ \(TCP\) was abandoned: nobody waits$/),
  });
  await sending.closed;
});

test('a signal that has fired already sends nothing', async () => {
  const caller = new AbortController();
  caller.abort(new Error('nobody waits'));
  await expect(
    new DnsClient({ server: server.address }).transfer('slow.test', { signal: caller.signal }),
  ).rejects.toMatchObject({ kind: 'aborted' });
});
