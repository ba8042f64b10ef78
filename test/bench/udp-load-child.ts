/**
 * Child process of test/bench/udp-load.ts: sends the questions on a schedule and matches the answers. Each question
 * is recorded under its ID (the ID is its sequence number modulo 65 536, so at 2 000 a second with a 2 s timeout
 * no ID is in use twice) with its send time, the question bytes and the window it was sent in; an answer counts when
 * its ID is awaited and its question section is the one sent. Memory stays bounded: fixed arrays per ID and a
 * histogram per window.
 */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { queryMessage } from '../../dns/client/messages';
import { LatencyHistogram, Silence, type WindowStats } from './isolation-stats';
import type { LoadCommand, LoadEvent, Question } from './udp-load';

const IDS = 65_536;
/** How far the generator may fall behind its schedule before it skips rather than bursts. */
const MAX_BEHIND_MS = 20;
const HEADER = 12;

interface Window {
  label: string;
  openedAt: number;
  closedAt?: number;
  /** The first sequence number after it (its questions are all settled once the oldest awaited is past it). */
  end?: number;
  sent: number;
  answered: number;
  lost: number;
  late: number;
  errors: number;
  mismatched: number;
  skipped: number;
  latency: LatencyHistogram;
  silence: Silence;
  /** The kernel's drop counters of the server's and the load's sockets at the opening. */
  drops: Drops;
  /** Their growth until the closing. */
  dropped?: Drops;
}

type Drops = [number | undefined, number | undefined];

/** Slot states (0: never used). */
const WAITING = 1;
const ANSWERED = 2;
const LOST = 3;

/**
 * Datagrams the kernel dropped so far at the UDP sockets bound to 127.0.0.1-or-any:`port` (their receive buffer full),
 * from /proc/net/udp; undefined when there is no such socket or no such file.
 */
function udpDrops(port: number): number | undefined {
  try {
    const suffix = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
    let drops: number | undefined;
    for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(suffix)) drops = (drops ?? 0) + Number(fields[12]);
    }
    return drops;
  } catch {
    return undefined;
  }
}

const delta = (before: number | undefined, after: number | undefined): number | undefined =>
  before === undefined || after === undefined ? undefined : after - before;

function send(event: LoadEvent): void {
  process.send?.(event);
}

/** Each question once as a wire message (ID 0, EDNS 1232, as a resolver asks) with the length of its question. */
function encode(questions: readonly Question[]): Array<{ wire: Buffer; questionEnd: number }> {
  return questions.map(([name, type]) => {
    const wire = queryMessage(name, type, { id: 0, edns: 1232 });
    return { wire, questionEnd: wire.length - 11 }; // the OPT record is 11 bytes at the end
  });
}

function run(config: Extract<LoadCommand, { kind: 'start' }>): void {
  const socket = createSocket('udp4');
  const other = encode(config.other);
  let target = other;
  const sentAt = new Float64Array(IDS);
  const state = new Uint8Array(IDS);
  const windowOf = new Int32Array(IDS).fill(-1);
  const questionOf: Array<{ wire: Buffer; questionEnd: number } | undefined> = new Array(IDS);
  const windows = new Map<number, Window>();
  let current: Window | undefined;
  let currentId = -1;
  let nextWindowId = 0;
  let seq = 0;
  /** The oldest sequence number not yet answered or timed out. */
  let oldest = 0;
  let base = performance.now();
  let scheduled = 0;

  const tick = (): void => {
    const now = performance.now();
    let due = Math.floor(((now - base) * config.qps) / 1000);
    const behind = due - scheduled - Math.ceil((MAX_BEHIND_MS * config.qps) / 1000);
    if (behind > 0) {
      if (current) current.skipped += behind;
      scheduled += behind;
    }
    due = Math.max(due, scheduled);
    for (; scheduled < due; scheduled++) {
      const pool = seq % 2 === 0 || target.length === 0 ? other : target;
      const question = pool[Math.floor(Math.random() * pool.length)];
      if (!question) continue;
      const id = seq % IDS;
      if (state[id] === WAITING) settle(id); // only when the timeout is longer than the ID space lasts
      const wire = Buffer.from(question.wire);
      wire.writeUInt16BE(id, 0);
      sentAt[id] = performance.now();
      state[id] = WAITING;
      questionOf[id] = question;
      windowOf[id] = current ? currentId : -1;
      if (current) current.sent++;
      seq++;
      socket.send(wire, config.port, '127.0.0.1');
    }
    timer = setTimeout(tick, 1);
  };

  /** A question unanswered within the timeout: lost for its window. */
  const settle = (id: number): void => {
    if (state[id] !== WAITING) return;
    state[id] = LOST;
    const w = windows.get(windowOf[id] ?? -1);
    if (w) w.lost++;
  };

  const sweep = (): void => {
    const now = performance.now();
    while (oldest < seq) {
      const id = oldest % IDS;
      if (state[id] === WAITING) {
        if (now - (sentAt[id] ?? 0) < config.timeoutMs) break;
        settle(id);
      }
      oldest++;
    }
    for (const [wid, w] of windows) {
      if (w.end === undefined || w.closedAt === undefined || oldest < w.end) continue;
      windows.delete(wid);
      send({
        kind: 'report',
        stats: {
          label: w.label,
          ms: w.closedAt - w.openedAt,
          sent: w.sent,
          answered: w.answered,
          lost: w.lost,
          late: w.late,
          errors: w.errors,
          mismatched: w.mismatched,
          p50: w.latency.quantile(0.5),
          p99: w.latency.quantile(0.99),
          max: w.latency.count ? w.latency.max : NaN,
          silence: w.silence.longest,
          skipped: w.skipped,
          serverDrops: w.dropped?.[0],
          loadDrops: w.dropped?.[1],
        } satisfies WindowStats,
      });
    }
  };

  socket.on('message', (msg: Buffer) => {
    const now = performance.now();
    current?.silence.answer(now); // any answer ends a silence, even a late one
    if (msg.length < HEADER) return;
    const id = msg.readUInt16BE(0);
    const question = questionOf[id];
    const w = windows.get(windowOf[id] ?? -1);
    const same =
      question !== undefined &&
      msg.length >= question.questionEnd &&
      msg.subarray(HEADER, question.questionEnd).equals(question.wire.subarray(HEADER, question.questionEnd));
    if (state[id] === LOST) {
      if (same && w) w.late++;
      state[id] = ANSWERED;
      return;
    }
    if (state[id] !== WAITING) return;
    if (!same) {
      if (w) w.mismatched++;
      return;
    }
    state[id] = ANSWERED;
    if (!w) return;
    w.answered++;
    w.latency.record(now - (sentAt[id] ?? now));
    if ((msg.readUInt8(3) & 0x0f) !== 0) w.errors++;
  });

  const handle = (command: LoadCommand): void => {
    switch (command.kind) {
      case 'target':
        target = encode(command.questions);
        return;
      case 'open': {
        const now = performance.now();
        currentId = nextWindowId++;
        current = {
          label: command.label,
          openedAt: now,
          sent: 0,
          answered: 0,
          lost: 0,
          late: 0,
          errors: 0,
          mismatched: 0,
          skipped: 0,
          latency: new LatencyHistogram(),
          silence: new Silence(now),
          drops: drops(),
        };
        windows.set(currentId, current);
        return;
      }
      case 'close': {
        if (!current) {
          send({ kind: 'error', message: 'close without an open window' });
          return;
        }
        const now = performance.now();
        current.closedAt = now;
        current.end = seq;
        current.silence.close(now);
        const [server, load] = drops();
        current.dropped = [delta(current.drops[0], server), delta(current.drops[1], load)];
        current = undefined;
        currentId = -1;
        return;
      }
      case 'stop':
        clearTimeout(timer);
        clearInterval(sweeper);
        socket.close(() => process.exit(0));
        return;
      case 'start':
        send({ kind: 'error', message: 'started twice' });
    }
  };
  process.removeAllListeners('message');
  process.on('message', handle);

  const drops = (): Drops => [udpDrops(config.port), udpDrops(socket.address().port)];
  let timer: NodeJS.Timeout | undefined;
  const sweeper = setInterval(sweep, 50);
  socket.on('error', (err) => send({ kind: 'error', message: err.message }));
  socket.bind(0, '127.0.0.1', () => {
    socket.setRecvBufferSize(4 * 1024 * 1024);
    base = performance.now();
    timer = setTimeout(tick, 1);
    send({ kind: 'ready' });
  });
}

process.on('message', (command: LoadCommand) => {
  if (command.kind !== 'start') return send({ kind: 'error', message: `${command.kind} before start` });
  // no ID may be awaited twice: the questions of one timeout must fit in the ID space
  if ((command.qps * command.timeoutMs) / 1000 >= IDS)
    return send({ kind: 'error', message: `${command.qps} q/s × ${command.timeoutMs} ms exceeds ${IDS} IDs` });
  run(command);
});
process.on('disconnect', () => process.exit(0));
