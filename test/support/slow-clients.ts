import { mkdtempSync } from 'node:fs';
import { request, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseFrames } from './sse';

/** Clients that read slower than the server sends, over real sockets, for the bounded-buffer tests. */

export interface RawRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

function requestText({ method, path, headers = {}, body }: RawRequest): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/**
 * A second way into a running HTTP server: a Unix socket whose connections the server handles like its TCP ones.
 * The kernel buffers ~200 KB for a Unix socket whose peer does not read, against several MB for a loopback TCP
 * socket, so a test sees the server's own buffering after seconds instead of minutes.
 */
export async function unixEntrance(
  server: Server,
): Promise<{ path: string; sockets: ReadonlySet<Socket>; close(): Promise<void> }> {
  const path = join(mkdtempSync(join(tmpdir(), 'onegraph-sock-')), 'http.sock');
  const sockets = new Set<Socket>();
  const listener = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    server.emit('connection', socket);
  });
  await new Promise<void>((resolve) => listener.listen(path, resolve));
  return {
    path,
    sockets,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        listener.close(() => resolve());
      }),
  };
}

/**
 * A client that sends its request and never reads a byte of the answer: a raw socket, paused from the start
 * (`path` of a Unix socket, or a TCP port on 127.0.0.1).
 */
export function neverReading(target: number | string, req: RawRequest): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = typeof target === 'number' ? connect(target, '127.0.0.1') : connect(target);
    socket.pause();
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined); // the server may reset it when it disconnects a slow client
      socket.write(requestText(req), () => resolve(socket));
    });
  });
}

/** A response read later: paused as soon as its headers arrive; `drain()` then reads for `ms` and returns the text. */
export interface PausedResponse {
  res: IncomingMessage;
  drain(ms: number): Promise<string>;
  close(): void;
}

export function pausedResponse(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; socketPath?: string } = {},
): Promise<PausedResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, socketPath: init.socketPath },
      (res) => {
        res.pause();
        res.on('error', () => undefined);
        resolve({
          res,
          close: () => req.destroy(),
          drain: (ms) =>
            new Promise((done) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => {
                text += chunk;
              });
              res.resume();
              setTimeout(() => done(text), ms);
            }),
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** `sequence` of every priceTicks event (or `id:` of every /v1/live frame) in an event stream's text, in order. */
export function sequencesIn(text: string): number[] {
  const out: number[] = [];
  for (const frame of parseFrames(text).frames) {
    if (frame.id !== undefined) out.push(Number(frame.id));
    else if (frame.data?.includes('"priceTicks"')) {
      const m = /"sequence":(\d+)/.exec(frame.data);
      if (m) out.push(Number(m[1]));
    }
  }
  return out;
}

/** Gaps in a rising sequence (a stream that lost events has at least one). */
export function gaps(sequences: number[]): number {
  let n = 0;
  for (let i = 1; i < sequences.length; i++) if ((sequences[i] as number) > (sequences[i - 1] as number) + 1) n++;
  return n;
}

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Heap in use after a full collection (what is really held, not garbage waiting). */
export function heapAfterGc(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
