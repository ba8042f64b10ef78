import { createSocket, type Socket } from 'node:dgram';
import { lookup, type LookupOptions } from 'node:dns';
import { createServer, isIP, isIPv6, type Server, type Socket as TcpSocket } from 'node:net';
import type { Remote, Responder } from './respond';
import { answerAtOnce, answerLater, safeReport, sendable } from './serve';
import { DEFAULT_TCP_LIMITS, TcpConnection, type TcpLimits } from './tcp';

export interface DnsServerOptions {
  host: string;
  /** 0 picks a free port (the same for UDP and TCP). */
  port: number;
  responder: Responder;
  /** Bounds of TCP connections (defaults: DEFAULT_TCP_LIMITS). */
  tcp?: Partial<TcpLimits>;
  /** Told once about each failure while answering (the message got SERVFAIL or was dropped); never thrown. */
  onError?: (err: unknown) => void;
  /** Told when a TCP connection was refused for the connection cap (at most once a minute). */
  onConnectionRefused?: (info: { open: number; maxConnections: number; refusedSinceLast: number }) => void;
}

export interface DnsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Where a UDP socket sends a reply: always the literal address a query came from, so no resolver round (dgram's
 * default lookup defers every send to the next tick); names still go through dns.lookup. One per socket.
 */
class ReplyLookup {
  /** Set when `lookup` had to resolve a name: that send happens later, not within `send()`. */
  deferred = false;
  /** The address last sent to (clients send many queries in a row): no need to check it is a literal again. */
  private lastHost = '';
  private lastFamily = 0;

  readonly lookup = (
    host: string,
    options: LookupOptions | number,
    callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
  ): void => {
    if (host === this.lastHost) return callback(null, host, this.lastFamily);
    const family = isIP(host);
    if (family !== 0) {
      this.lastHost = host;
      this.lastFamily = family;
      return callback(null, host, family);
    }
    this.deferred = true;
    lookup(host, typeof options === 'number' ? { family: options } : options, (err, address, fam) =>
      callback(err, typeof address === 'string' ? address : '', fam),
    );
  };
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
  const limits: TcpLimits = { ...DEFAULT_TCP_LIMITS, ...options.tcp };
  const report = safeReport(options.onError);
  const refused = { count: 0, toldAt: 0 };
  for (let attempt = 0; ; attempt++) {
    // half-open: a client that sends its queries and then shuts its side still gets every answer
    const tcp = createServer({ allowHalfOpen: true }, (socket) => {
      if (connections.size >= limits.maxConnections) {
        socket.on('error', () => undefined);
        socket.destroy();
        refused.count++;
        const now = Date.now();
        if (now - refused.toldAt >= 60_000) {
          refused.toldAt = now;
          const info = {
            open: connections.size,
            maxConnections: limits.maxConnections,
            refusedSinceLast: refused.count,
          };
          refused.count = 0;
          try {
            options.onConnectionRefused?.(info);
          } catch {
            // a faulty logger must not stop the server
          }
        }
        return;
      }
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
      new TcpConnection(socket, options.responder, limits, report);
    });
    const port = await listenTcp(tcp, options.host, options.port);
    const replyLookup = new ReplyLookup();
    const udp = createSocket({
      type: isIPv6(options.host) ? 'udp6' : 'udp4',
      reuseAddr: false,
      lookup: replyLookup.lookup,
    });
    try {
      await bindUdp(udp, options.host, port);
    } catch (err) {
      await new Promise((r) => tcp.close(r));
      udp.close();
      if (options.port !== 0 || attempt >= 5) throw err; // an ephemeral TCP port may be taken on UDP: try another
      continue;
    }
    tcp.on('error', report); // e.g. accept failing for lack of file descriptors: the server goes on
    udp.on('error', report);
    const sendUdp = (reply: Buffer, port: number, address: string): void => {
      try {
        replyLookup.deferred = false;
        udp.send(sendable(reply, report), port, address);
        // the answer may be the cache's own buffer: a send not done by now still reads it later
        if (replyLookup.deferred || udp.getSendQueueCount() > 0) options.responder.detach();
      } catch (err) {
        report(err);
      }
    };
    udp.on('message', (msg, rinfo) => {
      // port 0 cannot be answered (dgram throws for it)
      if (rinfo.port === 0) return;
      const now = answerAtOnce(options.responder, msg, 'udp', report, rinfo.address);
      if (now) return sendUdp(now, rinfo.port, rinfo.address);
      if (now === null) return;
      const remote: Remote = { address: rinfo.address, port: rinfo.port, transport: 'udp' };
      void answerLater(msg, {
        responder: options.responder,
        remote,
        send: (reply) => sendUdp(reply, rinfo.port, rinfo.address),
        report,
      });
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
