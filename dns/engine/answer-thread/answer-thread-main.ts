/**
 * The answer thread: its loop answers DNS over UDP and TCP and swaps in zone versions, nothing else. Zone versions
 * come from the engine as images, read here in steps of a few milliseconds (answers go on from the version held
 * meanwhile) and swapped in whole. Zone transfers are streamed from those copies here. UPDATE, which needs the
 * store, goes to the engine, and its answer comes back to be sent (signed here when the request was).
 */
import type { DecodedPacket } from 'dns-packet';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { type DnsServer, type ExtraHandlers, type Remote, transferHandler, ZoneTransfers } from '../../server';
import { startAnswering } from '../answering';
import type { TsigKey } from '../../tsig';
import { decodeSteps, readZoneImage, ZoneIndex, type ZoneImage } from '../../zone';
import type { AnswerThreadInit, FromAnswerThread, HandedRemote, ToAnswerThread } from './protocol';

/**
 * Answers are what must never wait: where the process may (root, or CAP_SYS_NICE), this thread runs at a higher
 * priority than the control plane and the signing threads, so that a busy machine delays them, not the answers. On
 * Linux a nice value belongs to one thread: only this one is raised.
 */
const ANSWER_NICE = -5;
try {
  setPriority(ANSWER_NICE);
} catch {
  // not allowed: answers run at the usual priority (the signing threads still yield to them)
}

const port = parentPort;
if (!port) throw new Error('answer-thread-main runs as a worker thread of the DNS engine');
const init = workerData as AnswerThreadInit;

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function tell(message: FromAnswerThread): void {
  port?.postMessage(message);
}

function report(err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  tell({ t: 'error', message: e.message, stack: e.stack });
}

const index = new ZoneIndex();
const keys = new Map<string, TsigKey>(
  init.keys.map((k) => [k.name, { name: k.name, algorithm: k.algorithm, secret: asBuffer(k.secret) }]),
);

// UPDATEs (and NOTIFYs, with secondary zones) handed to the engine, waiting for its reply.
let nextId = 1;
const waiting = new Map<number, { resolve: (message: Buffer) => void; reject: (err: Error) => void }>();

function handOver(raw: Buffer, remote: Remote): Promise<Buffer> {
  const id = nextId++;
  const handed: HandedRemote = { address: remote.address, port: remote.port, transport: remote.transport };
  if (remote.tsig?.status === 'ok') handed.signedBy = remote.tsig.key.name;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    tell({ t: 'handover', id, raw, remote: handed });
  });
}

/** Steps of making a zone transfer here: short, as every query waits for the step in progress. */
const TRANSFER_STEP_MS = 1;

const handlers: ExtraHandlers = {
  update: (_q: DecodedPacket, raw: Buffer, remote: Remote) => handOver(raw, remote),
  ...(init.handOverNotify ? { notify: (_q: DecodedPacket, raw: Buffer, remote: Remote) => handOver(raw, remote) } : {}),
  // streamed from this thread's own copy of the zone: nothing to hand over, and sent as fast as the client reads
  transfer: transferHandler(index, new ZoneTransfers({ stepMs: TRANSFER_STEP_MS }), init.access, (zone, remote) =>
    tell({ t: 'log', level: 'warn', obj: { zone, from: remote.address }, msg: 'zone transfer refused' }),
  ),
};

// Zone versions of one zone are read and swapped in in the order they came: a patch applies to the one before.
const installs = new Map<string, Promise<void>>();

function inOrder(zone: string, step: () => Promise<void>): void {
  const previous = installs.get(zone) ?? Promise.resolve();
  const next = previous.then(step).catch((err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    tell({ t: 'unreadable', zone, message: e.message });
  });
  installs.set(zone, next);
  void next.finally(() => {
    if (installs.get(zone) === next) installs.delete(zone);
  });
}

function install(image: ZoneImage, version: number): void {
  const received: ZoneImage = {
    ...image,
    nodes: asBuffer(image.nodes),
    chain: image.chain && asBuffer(image.chain),
  };
  inOrder(image.zone, async () => {
    const data = await readZoneImage(received, index.get(image.zone));
    index.set(data, image.journal ? decodeSteps(asBuffer(image.journal)) : null); // the engine's steps, or none
    tell({ t: 'at', zone: image.zone, version });
  });
}

let server: DnsServer | undefined;

async function listen(): Promise<void> {
  server = await startAnswering({
    index,
    handlers,
    keys,
    cookieSecret: asBuffer(init.cookieSecret),
    answerCache: init.answerCache,
    host: init.host,
    port: init.port,
    tcp: init.tcp,
    ...(init.udpBatch === undefined ? {} : { udpBatch: init.udpBatch }),
    ...(init.rrl ? { rrl: init.rrl } : {}),
    onError: report,
    warn: (obj, msg) => tell({ t: 'log', level: 'warn', obj, msg }),
    info: (obj, msg) => tell({ t: 'log', level: 'info', obj, msg }),
  });
  tell({ t: 'listening', port: server.port, batched: server.udp !== undefined && 'reusePort' in server.udp });
}

port.on('message', (message: ToAnswerThread) => {
  switch (message.t) {
    case 'image':
      return install(message.image, message.version);
    case 'drop':
      return inOrder(message.zone, () => {
        index.delete(message.zone);
        tell({ t: 'at', zone: message.zone, version: message.version });
        return Promise.resolve();
      });
    case 'listen':
      return void listen().catch((err: unknown) => {
        report(err);
        process.exit(1);
      });
    case 'reply': {
      const waiter = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.failed || !message.message)
        return waiter?.reject(new Error(`the engine could not answer a message handed over`));
      return waiter?.resolve(asBuffer(message.message));
    }
    case 'udp':
      return server?.answerUdp(asBuffer(message.message), message.address, message.port);
    case 'stats':
      // a copy of a few kilobytes per zone: the scrape never holds an answer up longer than that
      return void Promise.resolve(server?.stats()).then((snapshot) => {
        if (snapshot) tell({ t: 'stats', id: message.id, snapshot });
      });
    case 'close':
      return void (server?.close() ?? Promise.resolve()).finally(() => {
        for (const waiter of waiting.values()) waiter.reject(new Error('the DNS server is closing'));
        tell({ t: 'closed' });
        port.close();
      });
  }
});

tell({ t: 'started' });
