import type { DecodedPacket } from 'dns-packet';
import { performance } from 'node:perf_hooks';
import { nextTurn, runAtOnce, runInSteps } from '../../../platform/async';
import { isIPv4, isIPv6 } from 'node:net';
import { serialAtLeast, wireName } from '../../model';
import { encodeMessage, FLAG_AA, FLAG_TC, messageLength, RCODE } from '../../wire';
import { encodeResponse } from '../answer/encode';
import type { JournalStep, RR, ZoneData, ZoneIndex, ZoneJournal } from '../../zone';
import type { Remote, Replies } from '../pipeline/respond';

/** Records per AXFR message, and their bytes: keeps messages well under 64 KiB without name compression. */
const RECORDS_PER_MESSAGE = 100;
const MAX_BATCH_BYTES = 60_000;

/** The serial of the client's copy that an IXFR request names in its authority section (RFC 1995 §3). */
function ixfrClientSerial(query: DecodedPacket): number | undefined {
  const soa = (query.authorities ?? []).find((r) => r.type === 'SOA');
  const serial = (soa?.data as { serial?: unknown } | null | undefined)?.serial;
  return typeof serial === 'number' ? serial : undefined;
}

/** The answer to an IXFR whose client already has this version or a newer one: our SOA alone (RFC 1995 §2). */
function upToDate(query: DecodedPacket, zone: ZoneData, signed: boolean): Buffer[] | undefined {
  const clientSerial = query.questions?.[0]?.type === 'IXFR' ? ixfrClientSerial(query) : undefined;
  if (clientSerial === undefined || !serialAtLeast(clientSerial, zone.soa.data.serial ?? 0)) return undefined;
  return [encodeResponse(query, { answers: [zone.soa] }, RCODE.NOERROR, FLAG_AA, signed)];
}

/**
 * `records` as transfer messages, one at a time: as many records per message as fit (RECORDS_PER_MESSAGE,
 * MAX_BATCH_BYTES), the question in the first message only.
 */
function* messagesOf(query: DecodedPacket, zone: ZoneData, records: Iterable<RR>, signed: boolean): Generator<Buffer> {
  let batch: RR[] = [];
  let first = true;
  const encode = (): Buffer => {
    const message = encodeResponse(
      first ? query : { ...query, questions: [] },
      { answers: batch },
      RCODE.NOERROR,
      FLAG_AA,
      signed,
    );
    // cut to fit (TC): only a record too large for any message alone does that; the transfer fails (SERVFAIL)
    if (message.readUInt16BE(2) & FLAG_TC) {
      throw new Error(
        `zone transfer of ${zone.name || '.'} aborted: a record at ${batch[0]?.name} is too large for a DNS message${signed ? ' with a TSIG record' : ''}`,
      );
    }
    first = false;
    batch = [];
    return message;
  };
  let bytes = 0;
  for (const rr of records) {
    const size = messageLength({ answers: [rr] });
    if (batch.length >= RECORDS_PER_MESSAGE || bytes + size > MAX_BATCH_BYTES) {
      if (batch.length) yield encode();
      bytes = 0;
    }
    batch.push(rr);
    bytes += size;
  }
  if (batch.length) yield encode();
}

/** The records of a full transfer: SOA, every other record in store order, SOA again. */
function* fullTransfer(zone: ZoneData, order: readonly string[] | undefined): Generator<RR> {
  yield zone.soa;
  for (const node of zone.nodesIn(order)) for (const [type, rrs] of node) if (type !== 'SOA') yield* rrs;
  yield zone.soa;
}

/** The messages of a full transfer, one at a time. */
function transferMessages(
  query: DecodedPacket,
  zone: ZoneData,
  signed: boolean,
  order = runAtOnce(zone.ownerOrder()),
): Generator<Buffer> {
  return messagesOf(query, zone, fullTransfer(zone, order), signed);
}

/**
 * The records of an incremental transfer (RFC 1995 §4): the current SOA; per version, the SOA before it, the records
 * it deleted, its SOA, the records it added; the current SOA again.
 */
function* incrementalTransfer(zone: ZoneData, steps: readonly JournalStep[]): Generator<RR> {
  yield zone.soa;
  for (const step of steps) {
    yield step.from;
    yield* step.deleted;
    yield step.to;
    yield* step.added;
  }
  yield zone.soa;
}

/**
 * An IXFR's incremental answer when `journal` reaches back to the client's serial (all its messages: the changes
 * kept are bounded); undefined when it does not, or the query is no IXFR.
 */
function incremental(
  query: DecodedPacket,
  zone: ZoneData,
  signed: boolean,
  journal: ZoneJournal | undefined,
): Buffer[] | undefined {
  const clientSerial = query.questions?.[0]?.type === 'IXFR' ? ixfrClientSerial(query) : undefined;
  if (clientSerial === undefined || !journal) return undefined;
  const steps = journal.since(clientSerial, zone.soa.data.serial ?? 0);
  if (!steps || steps.length === 0) return undefined;
  return [...messagesOf(query, zone, incrementalTransfer(zone, steps), signed)];
}

/**
 * AXFR (RFC 5936): SOA, every other record, SOA again, in as many messages as needed. An IXFR gets our SOA alone when
 * the client already has the current version or a newer one (RFC 1995 §2, as BIND); the changes since its version
 * when `journal` reaches back to it; else the same full transfer (RFC 1995 §4 allows it).
 */
export function zoneTransfer(query: DecodedPacket, zone: ZoneData, signed = false, journal?: ZoneJournal): Buffer[] {
  return (
    upToDate(query, zone, signed) ??
    incremental(query, zone, signed, journal) ?? [...transferMessages(query, zone, signed)]
  );
}

/** Bytes a shared encoding may run ahead of the transfer furthest along (it waits beyond). */
const AHEAD_BYTES = 512 * 1024;

/**
 * Bytes of messages a shared encoding keeps although every reader passed them: a transfer asked while the first
 * ones are still kept joins it. A zone of 100 000 records (~4 MB) is encoded once for any number of transfers.
 */
const HOLD_BYTES = 8 * 1024 * 1024;

export interface ZoneTransfersOptions {
  /** A step of encoding runs at most this long before the loop goes on (ms; default 5). */
  stepMs?: number;
  /** Bytes kept for transfers that join late (default HOLD_BYTES). */
  holdBytes?: number;
}

/** Resolves every waiter at once, then waits anew (a condition checked in a loop). */
class Wakeup {
  private waiters: Array<() => void> = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * One encoding of a transfer (with ID 0), read by every transfer of the same zone copy asked the same way that joined
 * before its first message was dropped. It is made in steps of `stepMs`, no further than AHEAD_BYTES ahead of the
 * reader furthest along; messages every reader has passed are dropped once more than HOLD_BYTES are kept: memory
 * stays bounded by that and by how far apart the readers are, not by the zone's size.
 */
class SharedTransfer {
  /** Messages not yet passed by every reader: the first is number `dropped`. */
  private readonly messages: Buffer[] = [];
  private dropped = 0;
  private head = 0;
  private producedBytes = 0;
  private heldBytes = 0;
  private done = false;
  private failure?: Error;
  private readonly readers = new Set<TransferReader>();
  private readonly produced = new Wakeup();
  private readonly moved = new Wakeup();

  constructor(
    query: DecodedPacket,
    zone: ZoneData,
    signed: boolean,
    stepMs: number,
    private readonly holdBytes: number,
    private readonly onEnd: () => void,
  ) {
    void this.produce(query, zone, signed, stepMs);
  }

  /** A new reader can start from the first message only while nothing was dropped. */
  get joinable(): boolean {
    return this.dropped === 0 && this.head === 0 && !this.failure;
  }

  join(id: number): TransferReader {
    const reader = new TransferReader(this, id);
    this.readers.add(reader);
    return reader;
  }

  private async produce(query: DecodedPacket, zone: ZoneData, signed: boolean, stepMs: number): Promise<void> {
    try {
      // the owner names' order: sorted in steps too when the copy is not in it (a copy patched with new names)
      const order = await runInSteps(zone.ownerOrder(), { stepMs });
      let started = performance.now();
      for (const message of transferMessages(query, zone, signed, order)) {
        this.messages.push(message);
        this.producedBytes += message.length;
        this.heldBytes += message.length;
        this.produced.wake();
        if (this.readers.size > 0 && this.producedBytes - this.furthest() > AHEAD_BYTES) {
          while (this.readers.size > 0 && this.producedBytes - this.furthest() > AHEAD_BYTES / 2)
            await this.moved.wait();
          // on in a turn of its own: woken by a reader, it would encode on that reader's turn, unbounded
          await nextTurn();
          started = performance.now();
        } else if (performance.now() - started >= stepMs) {
          await nextTurn();
          started = performance.now();
        }
        if (this.readers.size === 0) return; // nobody reads any more
      }
      this.done = true;
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
    } finally {
      this.produced.wake();
      this.onEnd();
    }
  }

  private furthest(): number {
    let bytes = 0;
    for (const r of this.readers) bytes = Math.max(bytes, r.bytes);
    return bytes;
  }

  /** Message number `n`; undefined when it is not made yet; null when there is none (the end). Throws a failure. */
  async at(n: number): Promise<Buffer | null> {
    for (;;) {
      const message = this.messages[this.head + n - this.dropped];
      if (message) return message;
      if (this.failure) throw this.failure;
      if (this.done) return null;
      await this.produced.wait();
    }
  }

  /** A reader moved on or left: drop what every reader has passed, and let the encoding go on. */
  readerMoved(reader: TransferReader, left = false): void {
    if (left) this.readers.delete(reader);
    let slowest = Infinity;
    for (const r of this.readers) slowest = Math.min(slowest, r.position);
    if (this.readers.size === 0) slowest = this.dropped + this.messages.length - this.head;
    // kept up to HOLD_BYTES, so that transfers asked a little later (ten secondaries NOTIFYed at once) still join
    while (this.dropped < slowest && this.head < this.messages.length && this.heldBytes > this.holdBytes) {
      this.heldBytes -= (this.messages[this.head] as Buffer).length;
      this.messages[this.head++] = EMPTY; // dropped: compacted below once many are
      this.dropped++;
    }
    if (this.head > 1024) {
      this.messages.splice(0, this.head);
      this.head = 0;
    }
    this.moved.wake();
  }
}

const EMPTY = Buffer.alloc(0);

/** One transfer's messages from a shared encoding, each with the transfer's own ID and buffer. */
class TransferReader implements AsyncIterableIterator<Buffer> {
  position = 0;
  bytes = 0;
  private ended = false;

  constructor(
    private readonly shared: SharedTransfer,
    private readonly id: number,
  ) {}

  async next(): Promise<IteratorResult<Buffer>> {
    if (this.ended) return { done: true, value: undefined };
    let message: Buffer | null;
    try {
      message = await this.shared.at(this.position);
    } catch (err) {
      this.leave();
      throw err;
    }
    if (message === null) {
      this.leave();
      return { done: true, value: undefined };
    }
    this.position++;
    this.bytes += message.length;
    this.shared.readerMoved(this);
    const own = Buffer.from(message);
    own.writeUInt16BE(this.id, 0);
    return { done: false, value: own };
  }

  /** Ends this reader (the client left, or the sender stopped reading): the encoding no longer waits for it. */
  return(): Promise<IteratorResult<Buffer>> {
    this.leave();
    return Promise.resolve({ done: true, value: undefined });
  }

  private leave(): void {
    if (this.ended) return;
    this.ended = true;
    this.shared.readerMoved(this, true);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Buffer> {
    return this;
  }
}

/**
 * Zone transfers as the server sends them: streams made while they are sent (in steps of `stepMs`, the loop going on
 * between them) and shared by the transfers of one zone copy asked the same way that start together — ten
 * secondaries transferring a large zone at once cost one encoding. Each gets its own messages with its query's ID.
 */
export class ZoneTransfers {
  private readonly shared = new WeakMap<ZoneData, Map<string, SharedTransfer>>();
  /** Encodings started (transfers that joined one do not count). */
  encodings = 0;

  constructor(private readonly options: ZoneTransfersOptions = {}) {}

  /** The transfer `query` asks of `zone`: see zoneTransfer (`journal`: the zone's, for IXFR). */
  transfer(query: DecodedPacket, zone: ZoneData, signed = false, journal?: ZoneJournal): Replies {
    const now = upToDate(query, zone, signed) ?? incremental(query, zone, signed, journal);
    if (now) return now;
    // the same question, flags and EDNS give the same messages but for the ID
    const key = `${signed}:${encodeMessage({ ...query, id: 0 }).toString('base64')}`;
    let forZone = this.shared.get(zone);
    if (!forZone) this.shared.set(zone, (forZone = new Map<string, SharedTransfer>()));
    let shared = forZone.get(key);
    if (!shared?.joinable) {
      const { stepMs = 5, holdBytes = HOLD_BYTES } = this.options;
      const made: SharedTransfer = new SharedTransfer({ ...query, id: 0 }, zone, signed, stepMs, holdBytes, () => {
        if (forZone.get(key) === made) forZone.delete(key);
      });
      this.encodings++;
      shared = made;
      forZone.set(key, shared);
    }
    return shared.join(query.id ?? 0);
  }
}

/** Who may transfer which zone. */
export interface TransferAccess {
  /** Zone → key names allowed to transfer it; a zone not listed may be transferred with any configured key. */
  transferKeys?: Record<string, string[]>;
  /** Unsigned zone transfers from loopback addresses (default true). */
  transferFromLoopback?: boolean;
}

function isLoopback(address: string): boolean {
  const a = address.replace(/^::ffff:/, '');
  return (isIPv4(a) && a.startsWith('127.')) || (isIPv6(a) && a === '::1');
}

/** Whether `remote` may transfer `zone`: signed with a key allowed for it, or unsigned from loopback when allowed. */
export function transferAllowed(access: TransferAccess | undefined, zone: string, remote: Remote): boolean {
  if (remote.tsig?.status === 'ok') {
    const keys = access?.transferKeys?.[zone];
    return keys === undefined || keys.includes(remote.tsig.key.name);
  }
  return (access?.transferFromLoopback ?? true) && isLoopback(remote.address);
}

/**
 * The server's transfer handler over `index`: NOTAUTH for a zone not served, REFUSED (told to `refused`) when the
 * requester may not, else the transfer streamed from the copy served now.
 */
export function transferHandler(
  index: ZoneIndex,
  transfers: ZoneTransfers,
  access: TransferAccess | undefined,
  refused: (zone: string, remote: Remote) => void,
): (query: DecodedPacket, raw: Buffer, remote: Remote) => Replies {
  return (query, _raw, remote) => {
    const question = query.questions?.[0];
    const zone = question ? wireName(question.name) : '';
    const data = index.get(zone);
    if (!data) return [encodeResponse(query, {}, RCODE.NOTAUTH)];
    if (data.unavailable) return [encodeResponse(query, {}, RCODE.SERVFAIL)]; // an expired secondary zone, as BIND
    if (!transferAllowed(access, zone, remote)) {
      refused(zone, remote);
      return [encodeResponse(query, {}, RCODE.REFUSED)];
    }
    return transfers.transfer(query, data, remote.tsig?.status === 'ok', index.journal(zone));
  };
}
