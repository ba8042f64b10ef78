import { createSocket, type Socket } from 'node:dgram';
import { createServer, isIP, isIPv6, type Server, type Socket as TcpSocket } from 'node:net';
import type { Responder } from '../pipeline/respond';
import { safeReport, type Report } from './serve';
import { bindBatchedUdp, serveBatchedUdp, udpBatchAddon } from './udp-batch';
import { DEFAULT_TCP_LIMITS, TcpConnection, type TcpLimits } from './tcp';
import { ReplyLookup, serveUdp, type UdpAnswer } from './udp';
import { add, type DnsStatsSnapshot, G } from '../stats/dns-stats';

export interface DnsServerOptions {
  host: string;
  /** 0 picks a free port (the same for UDP and TCP). */
  port: number;
  responder: Responder;
  /** Bounds of TCP connections (defaults: DEFAULT_TCP_LIMITS). */
  tcp?: Partial<TcpLimits>;
  /** Batched UDP through the native addon when it is built (the default); false: dgram. */
  udpBatch?: boolean;
  /** Told once about each failure while answering (the message got SERVFAIL or was dropped); never thrown. */
  onError?: (err: unknown) => void;
  /** Told when a TCP connection was refused for the connection cap (at most once a minute). */
  onConnectionRefused?: (info: { open: number; maxConnections: number; refusedSinceLast: number }) => void;
}

export interface DnsServer {
  host: string;
  port: number;
  /** How answer workers read the UDP port too (absent: they cannot). */
  udp?: UdpShare;
  /** Answers a UDP message received elsewhere (an answer worker hands over what needs the primary). */
  answerUdp: UdpAnswer;
  /** What it counted so far (see DnsStats); a server answering from another thread asks it. */
  stats(): DnsStatsSnapshot | Promise<DnsStatsSnapshot>;
  close(): Promise<void>;
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

/**
 * How answer workers read the UDP port: a dgram socket handed over IPC (they share it), or — with the batched UDP
 * addon — a socket of their own in the port's SO_REUSEPORT group.
 */
export type UdpShare = { socket: Socket } | { reusePort: { host: string; port: number } };

interface UdpSide {
  share: UdpShare;
  answerUdp: UdpAnswer;
  close(): Promise<void>;
}

/**
 * The UDP side on `host`:`port`: batched by the native addon when it is built and `host` is an IP address (one
 * system call per batch of datagrams), else through dgram.
 */
async function openUdp(
  host: string,
  port: number,
  responder: Responder,
  report: Report,
  batch: boolean,
): Promise<UdpSide> {
  const addon = udpBatchAddon(batch);
  if (addon && isIP(host) !== 0) {
    const bound = bindBatchedUdp(addon, host, port);
    const served = serveBatchedUdp(addon, bound.fd, responder, report);
    return {
      share: { reusePort: { host, port: bound.port } },
      answerUdp: served.answerUdp,
      close: () => Promise.resolve(served.close()),
    };
  }
  const replyLookup = new ReplyLookup();
  const udp = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', reuseAddr: false, lookup: replyLookup.lookup });
  try {
    await bindUdp(udp, host, port);
  } catch (err) {
    udp.close();
    throw err;
  }
  udp.on('error', report);
  return {
    share: { socket: udp },
    answerUdp: serveUdp(udp, replyLookup, responder, report),
    close: () => new Promise<void>((r) => udp.close(() => r())),
  };
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
        add(options.responder.stats.counts, G.tcpRefused);
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
    let udp: UdpSide;
    try {
      udp = await openUdp(options.host, port, options.responder, report, options.udpBatch ?? true);
    } catch (err) {
      await new Promise((r) => tcp.close(r));
      if (options.port !== 0 || attempt >= 5) throw err; // an ephemeral TCP port may be taken on UDP: try another
      continue;
    }
    tcp.on('error', report); // e.g. accept failing for lack of file descriptors: the server goes on
    return {
      host: options.host,
      port,
      udp: udp.share,
      answerUdp: udp.answerUdp,
      stats: () => options.responder.stats.snapshot(),
      close: async () => {
        for (const c of connections) c.destroy();
        await Promise.all([new Promise((r) => tcp.close(r)), udp.close()]);
      },
    };
  }
}
