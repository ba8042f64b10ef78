import { createSocket, type Socket } from 'node:dgram';
import { lookup, type LookupOptions } from 'node:dns';
import { createServer, isIP, isIPv6, type Server, type Socket as TcpSocket } from 'node:net';
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

function framed(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(message.length + 2);
  out.writeUInt16BE(message.length, 0);
  message.copy(out, 2);
  return out;
}

/** Set when `literalLookup` had to resolve a name: that send happens later, not within `send()`. */
let deferredLookup = false;
/** The address last sent to (clients send many queries in a row): no need to check it is a literal again. */
const lastLiteral = { host: '', family: 0 };

/**
 * Where to send a reply: always the literal address a query came from, so no resolver round (dgram's default
 * lookup defers every send to the next tick); names still go through dns.lookup.
 */
function literalLookup(host: string, options: LookupOptions | number, callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void): void {
  if (host === lastLiteral.host) return callback(null, host, lastLiteral.family);
  const family = isIP(host);
  if (family !== 0) {
    lastLiteral.host = host;
    lastLiteral.family = family;
    return callback(null, host, family);
  }
  deferredLookup = true;
  lookup(host, typeof options === 'number' ? { family: options } : options, (err, address, fam) => callback(err, address as string, fam as number));
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
      const now = options.responder.answerNow(message, 'tcp');
      if (now) {
        if (!socket.destroyed) socket.write(framed(now));
        continue;
      }
      const remote: Remote = { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0, transport: 'tcp' };
      options.responder.handle(message, remote).then((replies) => {
        for (const reply of replies) {
          if (socket.destroyed) return;
          socket.write(framed(reply));
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
    const udp = createSocket({ type: isIPv6(options.host) ? 'udp6' : 'udp4', reuseAddr: false, lookup: literalLookup as never });
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
      const now = options.responder.answerNow(msg, 'udp');
      if (now) {
        deferredLookup = false;
        udp.send(now, rinfo.port, rinfo.address);
        // the answer may be the cache's own buffer: a send not done by now still reads it later
        if (deferredLookup || udp.getSendQueueCount() > 0) options.responder.detach();
        return;
      }
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
