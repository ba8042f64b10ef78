import { createSocket, type Socket } from 'node:dgram';
import { createServer, isIPv6, type Server, type Socket as TcpSocket } from 'node:net';
import type { Remote, Responder } from './respond';

export interface DnsServerOptions {
  host: string;
  /** 0 picks a free port (the same for UDP and TCP). */
  port: number;
  responder: Responder;
  /** Idle TCP connections are closed after this long (RFC 7766 suggests seconds). */
  tcpIdleMs?: number;
  onError?: (err: unknown) => void;
}

export interface DnsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** TCP: 2-byte length prefix per message (RFC 1035 §4.2.2), several messages per connection, pipelined. */
function serveTcp(socket: TcpSocket, options: DnsServerOptions): void {
  let buffer: Buffer = Buffer.alloc(0);
  socket.setTimeout(options.tcpIdleMs ?? 10_000, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    while (buffer.length >= 2) {
      const len = buffer.readUInt16BE(0);
      if (buffer.length < 2 + len) break;
      const message = buffer.subarray(2, 2 + len);
      buffer = buffer.subarray(2 + len);
      const remote: Remote = { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0, transport: 'tcp' };
      options.responder.handle(message, remote).then((replies) => {
        for (const reply of replies) {
          if (socket.destroyed) return;
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(reply.length, 0);
          socket.write(Buffer.concat([prefix, reply]));
        }
      }, options.onError);
    }
  });
}

function listenTcp(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

function bindUdp(socket: Socket, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

/** Authoritative DNS over UDP and TCP on one address and port. */
export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const connections = new Set<TcpSocket>();
  for (let attempt = 0; ; attempt++) {
    const tcp = createServer((socket) => {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
      serveTcp(socket, options);
    });
    const port = await listenTcp(tcp, options.host, options.port);
    const udp = createSocket({ type: isIPv6(options.host) ? 'udp6' : 'udp4', reuseAddr: false });
    try {
      await bindUdp(udp, options.host, port);
    } catch (err) {
      await new Promise((r) => tcp.close(r));
      udp.close();
      if (options.port !== 0 || attempt >= 5) throw err; // an ephemeral TCP port may be taken on UDP: try another
      continue;
    }
    udp.on('error', (err) => options.onError?.(err));
    udp.on('message', (msg, rinfo) => {
      const remote: Remote = { address: rinfo.address, port: rinfo.port, transport: 'udp' };
      options.responder.handle(msg, remote).then((replies) => {
        for (const reply of replies) udp.send(reply, rinfo.port, rinfo.address);
      }, options.onError);
    });
    return {
      host: options.host,
      port,
      close: async () => {
        for (const c of connections) c.destroy();
        await Promise.all([new Promise((r) => tcp.close(r)), new Promise<void>((r) => udp.close(() => r()))]);
      },
    };
  }
}
