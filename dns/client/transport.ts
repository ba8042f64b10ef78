import { createSocket } from 'node:dgram';
import { isIP, Socket } from 'node:net';
import { DnsClientError } from './errors';
import { formatServerAddress, type ServerAddress } from './server-address';

/** Largest UDP answer we accept (EDNS buffer we may advertise). */
const MAX_UDP = 65_535;

/**
 * One UDP exchange: sends `message` and resolves with the first datagram from the server that carries the same ID
 * (others — late answers of earlier queries, spoofs from other ports — are ignored).
 */
export function udpExchange(server: ServerAddress, message: Buffer, timeoutMs: number, tries = 1): Promise<Buffer> {
  const id = message.readUInt16BE(0);
  const where = formatServerAddress(server);
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    // `tries` > 1: the same message sent again each timeoutMs / tries without an answer (a lost datagram, or one a
    // server's rate limiting dropped), as dig retries; only for what may be asked twice (queries, not UPDATE)
    let resend: NodeJS.Timeout | undefined;
    const done = (err: Error | null, answer?: Buffer) => {
      clearTimeout(timer);
      clearInterval(resend);
      socket.close();
      if (err) reject(err);
      else resolve(answer as Buffer);
    };
    const timer = setTimeout(
      () => done(new DnsClientError('timeout', `no answer from ${where} within ${timeoutMs} ms (UDP)`)),
      timeoutMs,
    );
    socket.on('error', (err: NodeJS.ErrnoException) =>
      done(new DnsClientError('connection', `${where} (UDP): ${err.code ?? err.message}`)),
    );
    socket.on('message', (msg, from) => {
      if (from.port !== server.port || msg.length < 12 || msg.length > MAX_UDP || msg.readUInt16BE(0) !== id) return;
      done(null, msg);
    });
    socket.connect(server.port, server.host, () => {
      socket.send(message);
      if (tries > 1) resend = setInterval(() => socket.send(message), Math.max(1, Math.floor(timeoutMs / tries)));
    });
  });
}

/** `message` with the 2-byte length prefix DNS over TCP puts before each message (RFC 1035 §4.2.2). */
export function frameMessage(message: Buffer): Buffer {
  if (message.length > 65_535)
    throw new DnsClientError('format', `a message of ${message.length} bytes cannot go over TCP`);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length, 0);
  return Buffer.concat([length, message]);
}

/**
 * The whole length-prefixed messages at the start of a TCP byte stream (views into `stream`, prefixes removed) and
 * the bytes after the last of them: a message not yet whole, to be completed by the bytes that come next.
 */
export function splitFrames(stream: Buffer): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let at = 0;
  while (at + 2 <= stream.length) {
    const length = stream.readUInt16BE(at);
    if (at + 2 + length > stream.length) break;
    messages.push(stream.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return { messages, rest: stream.subarray(at) };
}

/** A TCP connection to a DNS server carrying length-prefixed messages (RFC 1035 §4.2.2, RFC 7766). */
export class TcpConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private failure: Error | null = null;
  private waiter: (() => void) | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly where: string,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      this.fail(new DnsClientError('connection', `${where} (TCP): ${err.code ?? err.message}`)),
    );
    socket.on('close', () => this.fail(new DnsClientError('connection', `${where} (TCP) closed the connection`)));
  }

  /** Connects; `signal` firing on the way closes the socket and rejects with a DnsClientError (kind `aborted`). */
  static open(server: ServerAddress, timeoutMs: number, signal?: AbortSignal): Promise<TcpConnection> {
    const where = formatServerAddress(server);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError(where, signal));
      const socket = new Socket();
      const fail = (err: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        socket.destroy();
        reject(err);
      };
      const abort = () => fail(abortedError(where, signal));
      const timer = setTimeout(
        () => fail(new DnsClientError('timeout', `could not connect to ${where} within ${timeoutMs} ms (TCP)`)),
        timeoutMs,
      );
      signal?.addEventListener('abort', abort, { once: true });
      socket.once('error', (err: NodeJS.ErrnoException) =>
        fail(new DnsClientError('connection', `${where} (TCP): ${err.code ?? err.message}`)),
      );
      socket.connect(server.port, server.host, () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        socket.removeAllListeners('error');
        socket.setNoDelay(true);
        resolve(new TcpConnection(socket, where));
      });
    });
  }

  send(message: Buffer): void {
    this.socket.write(frameMessage(message));
  }

  /** The next message from the server; rejects when none comes within `timeoutMs` or the connection ends. */
  async next(timeoutMs: number): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = this.frames.shift();
      if (frame) return frame;
      if (this.failure) throw this.failure;
      const left = deadline - Date.now();
      if (left <= 0) throw new DnsClientError('timeout', `no answer from ${this.where} within ${timeoutMs} ms (TCP)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
  }

  close(): void {
    this.socket.destroy();
  }

  /** Closes the connection because its caller stopped waiting: a pending `next` rejects with why. */
  abort(signal: AbortSignal): void {
    this.fail(abortedError(this.where, signal));
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    const { messages, rest } = splitFrames(this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk);
    for (const message of messages) this.frames.push(Buffer.from(message)); // copies: a message kept does not pin the whole chunk
    this.buffered = rest;
    this.waiter?.();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.waiter?.();
  }
}

/** Why a caller stopped an exchange with `where`, as a DnsClientError saying so (and the signal's reason). */
export function abortedError(where: string, signal: AbortSignal | undefined): DnsClientError {
  const reason = signal?.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new DnsClientError('aborted', `the exchange with ${where} (TCP) was abandoned${reason}`);
}

/** One exchange over a fresh TCP connection. */
export async function tcpExchange(server: ServerAddress, message: Buffer, timeoutMs: number): Promise<Buffer> {
  const deadline = Date.now() + timeoutMs;
  const connection = await TcpConnection.open(server, timeoutMs);
  try {
    connection.send(message);
    const id = message.readUInt16BE(0);
    for (;;) {
      const answer = await connection.next(Math.max(1, deadline - Date.now()));
      if (answer.length >= 12 && answer.readUInt16BE(0) === id) return answer;
    }
  } finally {
    connection.close();
  }
}
