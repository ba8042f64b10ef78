/**
 * Batched UDP for the DNS server (the native addon in udp_batch.c, built by `npm run build`): one recvmmsg per
 * batch of up to 32 queries, one call into JavaScript for the batch, one sendmmsg for its answers — where Node's
 * dgram costs a recvmsg, a sendmsg and a JavaScript callback per datagram. On loopback benchmarks the system calls
 * cost more than answering; BIND batches the same way. When the addon is not built (or is not wanted) the
 * server uses dgram (server.ts) and answers the same.
 */
import { endianness } from 'node:os';
import { nativeAddonFile } from '../../../../platform/files';
import { formatIPv6, parseIPv4, parseIPv6 } from '../../../records';
import type { Responder } from '../../pipeline/respond';
import { answerAtOnce, sendable, type Report } from '../serve';
import { answerUdpLater, type UdpAnswer } from '../udp';
import { UDP } from '../../stats/dns-stats';

interface Addon {
  bind(host: string, port: number, reusePort: boolean): [fd: number, port: number];
  open(fd: number, area: Buffer, addrs: Buffer, meta: Buffer, out: Buffer, outMeta: Buffer, batch: Batch): object;
  sendTo(handle: object, message: Buffer, address: Buffer, addressLength: number): number;
  close(handle: object): void;
}
type Batch = (count: number) => number;

const SLOTS = 32;
/** A UDP datagram can be this long (an UPDATE may be); a query is far shorter, but none is cut. */
const IN_SLOT = 65_536;
/** Answers up to this long go out in the batch; longer ones (rare over UDP) one by one. */
const OUT_SLOT = 4_096;
const ADDR_SIZE = 28;
const AF_INET = 2;
const AF_INET6 = 10;
const LITTLE_ENDIAN = endianness() === 'LE';

let loaded: Addon | null | undefined;

/**
 * The addon, or null when it is not built, this is not Linux, or it is not `wanted` (the DNS_UDP_BATCH setting): then
 * the server answers through dgram.
 */
export function udpBatchAddon(wanted = true): Addon | null {
  if (!wanted || process.platform !== 'linux') return null;
  if (loaded !== undefined) return loaded;
  const file = nativeAddonFile(__dirname, ['dns', 'server', 'transport', 'udp-batch'], 'udp_batch.node');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a native addon loads only through require
  loaded = file ? (require(file) as Addon) : null;
  return loaded;
}

/**
 * A UDP socket bound by the addon, one of the port's SO_REUSEPORT group: each answer worker binds one of its own, and
 * the kernel gives each sender's datagrams to one socket of the group (no process woken for nothing).
 */
export function bindBatchedUdp(addon: Addon, host: string, port: number): { fd: number; port: number } {
  const [fd, bound] = addon.bind(host, port, true);
  return { fd, port: bound };
}

/** The text form of a sender's address as dgram gives it (IPv4-mapped IPv6 as ::ffff:a.b.c.d). */
function addressText(addrs: Buffer, at: number): string {
  const family = LITTLE_ENDIAN ? addrs.readUInt16LE(at) : addrs.readUInt16BE(at);
  if (family === AF_INET) return `${addrs[at + 4]}.${addrs[at + 5]}.${addrs[at + 6]}.${addrs[at + 7]}`;
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(addrs.readUInt16BE(at + 8 + i * 2));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `::ffff:${addrs[at + 20]}.${addrs[at + 21]}.${addrs[at + 22]}.${addrs[at + 23]}`;
  return formatIPv6(groups);
}

/** A sockaddr for `address`:`port` (to answer a message a worker handed over), with its length. */
function sockaddrOf(address: string, port: number): { bytes: Buffer; length: number } | null {
  const bytes = Buffer.alloc(ADDR_SIZE);
  const writeFamily = (f: number): number => (LITTLE_ENDIAN ? bytes.writeUInt16LE(f, 0) : bytes.writeUInt16BE(f, 0));
  const v4 = parseIPv4(address);
  if (v4) {
    writeFamily(AF_INET);
    bytes.writeUInt16BE(port, 2);
    bytes.set(v4, 4);
    return { bytes, length: 16 };
  }
  const v6 = parseIPv6(address);
  if (!v6) return null;
  writeFamily(AF_INET6);
  bytes.writeUInt16BE(port, 2);
  v6.forEach((g, i) => bytes.writeUInt16BE(g, 8 + i * 2));
  return { bytes, length: ADDR_SIZE };
}

export interface BatchedUdp {
  /** Answers a message received elsewhere (one a worker handed over) to `address`:`port`. */
  answerUdp: UdpAnswer;
  close(): void;
}

/**
 * Answers the datagrams of `fd` with `responder`, a batch at a time: plain queries at once into the batch's answers;
 * the rest (UPDATE, signed, NOTIFY) when `handle` is done — or, when `later` is given (an answer worker), handed to
 * it. The socket is closed by `close()`.
 */
export function serveBatchedUdp(
  addon: Addon,
  fd: number,
  responder: Responder,
  report: Report,
  later?: UdpAnswer,
): BatchedUdp {
  const area = Buffer.allocUnsafeSlow(SLOTS * IN_SLOT);
  const addrs = Buffer.allocUnsafeSlow(SLOTS * ADDR_SIZE);
  const metaBytes = Buffer.alloc(SLOTS * 16);
  const meta = new Int32Array(metaBytes.buffer, metaBytes.byteOffset, SLOTS * 4);
  const out = Buffer.allocUnsafeSlow(SLOTS * OUT_SLOT);
  const outMetaBytes = Buffer.alloc(SLOTS * 8);
  const outMeta = new Int32Array(outMetaBytes.buffer, outMetaBytes.byteOffset, SLOTS * 2);
  let handle: object | undefined;

  const sendOne = (reply: Buffer, to: Buffer, length: number): void => {
    if (handle !== undefined) addon.sendTo(handle, sendable(reply, report), to, length); // a full buffer drops it, as UDP may
  };

  /** The sender of the previous datagram (a busy client sends many in a row): its text form is made once. */
  let lastSender = -1;
  let lastText = '';
  const stats = responder.stats;
  const batch: Batch = (count) => {
    // the batch's answers go out together once it returns (sendmmsg): each waited as long as the batch took
    const started = performance.now();
    let answers = 0;
    let atOnce = 0;
    for (let i = 0; i < count; i++) {
      try {
        if (meta[i * 4 + 2] !== 0) continue; // cut to the slot: cannot happen for UDP, and is no DNS message
        const start = i * IN_SLOT;
        const message = area.subarray(start, start + (meta[i * 4] ?? 0));
        const at = i * ADDR_SIZE;
        const port = addrs.readUInt16BE(at + 2);
        if (port === 0) continue;
        const v4 = addrs.readUInt16LE(at) === AF_INET ? addrs.readInt32LE(at + 4) : -1;
        const address = v4 !== -1 && v4 === lastSender ? lastText : addressText(addrs, at);
        lastSender = v4;
        lastText = address;
        const now = answerAtOnce(responder, message, 'udp', report, address);
        if (now === null) continue;
        if (now !== undefined) {
          atOnce++;
          const reply = sendable(now, report);
          if (reply.length <= OUT_SLOT) {
            reply.copy(out, answers * OUT_SLOT);
            outMeta[answers * 2] = reply.length;
            outMeta[answers * 2 + 1] = i;
            answers++;
          } else sendOne(reply, addrs.subarray(at, at + ADDR_SIZE), meta[i * 4 + 1] ?? 0);
          continue;
        }
        // kept past this batch: the message and its sender leave the shared areas
        const to = Buffer.from(addrs.subarray(at, at + ADDR_SIZE));
        const length = meta[i * 4 + 1] ?? 0;
        answerUdpLater(responder, report, later, Buffer.from(message), address, port, (r) => sendOne(r, to, length));
      } catch (err) {
        report(err);
      }
    }
    if (atOnce > 0) stats.duration(UDP, (performance.now() - started) / 1000, atOnce);
    return answers;
  };
  handle = addon.open(fd, area, addrs, metaBytes, out, outMetaBytes, batch);
  return {
    answerUdp: (message, address, port) => {
      const to = sockaddrOf(address, port);
      if (!to) return report(new Error(`cannot answer ${address}:${port}: not an IP address`));
      const started = performance.now();
      const now = answerAtOnce(responder, message, 'udp', report, address);
      if (now) {
        sendOne(now, to.bytes, to.length);
        return stats.duration(UDP, (performance.now() - started) / 1000, 1);
      }
      if (now === null) return;
      answerUdpLater(responder, report, undefined, message, address, port, (r) => sendOne(r, to.bytes, to.length));
    },
    close: () => {
      if (handle !== undefined) addon.close(handle);
      handle = undefined;
    },
  };
}
