import { createServer, type Server, type Socket } from 'node:net';
import { frameMessage, splitFrames } from '../../dns/client';
import { encodeMessage } from '../../dns/wire/packet';

/** One zone transfer the fake server is sending: it ends only when its client closes the connection. */
export interface TransferInProgress {
  /** Messages sent on it so far. */
  sent(): number;
  /** Resolves when the client has closed the connection. */
  closed: Promise<void>;
}

export interface EndlessTransferServer {
  /** `127.0.0.1 <port>`, as the DNS tool's zone settings take a server. */
  address: string;
  /** Resolves with the next transfer asked for (the first not yet handed out). */
  nextTransfer(): Promise<TransferInProgress>;
  close(): Promise<void>;
}

const AUTHORITATIVE = 1 << 10;

/**
 * A DNS server (TCP) whose zone transfers never end: the SOA, then a message of 20 A records every few milliseconds,
 * for as long as the client keeps the connection. What a huge zone on a slow primary looks like to the DNS tool; a
 * transfer that stops shows here as its connection closed by the client.
 */
export async function startEndlessTransferServer(): Promise<EndlessTransferServer> {
  const requested: TransferInProgress[] = [];
  const waiting: Array<(t: TransferInProgress) => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let buffered = Buffer.alloc(0);
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        clearInterval(timer);
        sockets.delete(socket);
        resolve();
      }),
    );
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      const { messages, rest } = splitFrames(Buffer.concat([buffered, chunk]));
      buffered = Buffer.from(rest);
      const [query] = messages;
      if (!query || timer) return;
      const id = query.readUInt16BE(0);
      const zone = 'slow.test';
      const send = (answers: Parameters<typeof encodeMessage>[0]['answers']) => {
        sent++;
        socket.write(
          frameMessage(
            encodeMessage({
              id,
              type: 'response',
              flags: AUTHORITATIVE,
              questions: sent === 1 ? [{ name: zone, type: 'AXFR', class: 'IN' }] : [],
              answers,
            }),
          ),
        );
      };
      send([
        {
          name: zone,
          type: 'SOA',
          ttl: 300,
          data: {
            mname: `ns1.${zone}`,
            rname: `hostmaster.${zone}`,
            serial: 1,
            refresh: 3600,
            retry: 600,
            expire: 86400,
            minimum: 300,
          },
        },
      ]);
      let n = 0;
      timer = setInterval(() => {
        send(
          Array.from({ length: 20 }, () => {
            n++;
            return {
              name: `h${n}.${zone}`,
              type: 'A' as const,
              ttl: 300,
              data: `10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`,
            };
          }),
        );
      }, 5);
      const transfer = { sent: () => sent, closed };
      const taker = waiting.shift();
      if (taker) taker(transfer);
      else requested.push(transfer);
    });
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    address: `127.0.0.1 ${port}`,
    nextTransfer: () => {
      const ready = requested.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
