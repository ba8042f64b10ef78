import type { DecodedPacket } from 'dns-packet';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { serialAtLeast } from '../../model';
import { encodeMessage, FLAG_AA, FLAG_TC, messageLength, RCODE } from '../../wire';
import { encodeResponse } from '../answer/encode';
import type { RR, ZoneData } from '../../zone';

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

/** The messages of a full transfer, one at a time: SOA, every other record in store order, SOA again. */
function* transferMessages(query: DecodedPacket, zone: ZoneData, signed: boolean): Generator<Buffer> {
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
  function* add(rr: RR): Generator<Buffer> {
    const size = messageLength({ answers: [rr] });
    if (batch.length >= RECORDS_PER_MESSAGE || bytes + size > MAX_BATCH_BYTES) {
      if (batch.length) yield encode();
      bytes = 0;
    }
    batch.push(rr);
    bytes += size;
  }
  yield* add(zone.soa);
  for (const node of zone.ownerNodes())
    for (const [type, rrs] of node) if (type !== 'SOA') for (const rr of rrs) yield* add(rr);
  yield* add(zone.soa);
  if (batch.length) yield encode();
}

/**
 * AXFR (RFC 5936): SOA, every other record, SOA again, in as many messages as needed. IXFR requests get the same
 * full transfer (RFC 1995 §4 allows it when no incremental history is kept), except when the client already has
 * the current version or a newer one: then the answer is our SOA alone (RFC 1995 §2), as BIND answers.
 */
export function zoneTransfer(query: DecodedPacket, zone: ZoneData, signed = false): Buffer[] {
  return upToDate(query, zone, signed) ?? [...transferMessages(query, zone, signed)];
}

/** A step of encoding a transfer runs at most this long before it lets the loop run (ms). */
const STEP_MS = 5;

/**
 * Zone transfers as the engine serves them: encoded in steps of STEP_MS (the loop goes on between them), and shared
 * by the transfers of one zone copy asked the same way while that copy is held — ten secondaries transferring a
 * large zone at once cost one encoding. Each gets its own copy of the messages with its query's ID.
 */
export class ZoneTransfers {
  private readonly shared = new WeakMap<ZoneData, Map<string, Promise<Buffer[]>>>();

  async transfer(query: DecodedPacket, zone: ZoneData, signed = false): Promise<Buffer[]> {
    const now = upToDate(query, zone, signed);
    if (now) return now;
    // the same question, flags and EDNS give the same messages but for the ID
    const key = `${signed}:${encodeMessage({ ...query, id: 0 }).toString('base64')}`;
    let forZone = this.shared.get(zone);
    if (!forZone) this.shared.set(zone, (forZone = new Map<string, Promise<Buffer[]>>()));
    let made = forZone.get(key);
    if (!made) {
      made = inSteps(transferMessages({ ...query, id: 0 }, zone, signed));
      forZone.set(key, made);
      made.catch(() => forZone.delete(key)); // a failure is not kept: the next transfer tries again
    }
    const id = query.id ?? 0;
    return (await made).map((m) => {
      const own = Buffer.from(m);
      own.writeUInt16BE(id, 0);
      return own;
    });
  }
}

async function inSteps(messages: Generator<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let started = performance.now();
  for (const message of messages) {
    out.push(message);
    if (performance.now() - started >= STEP_MS) {
      await nextTurn();
      started = performance.now();
    }
  }
  return out;
}
