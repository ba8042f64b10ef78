import type { DecodedPacket } from 'dns-packet';
import { serialAtLeast } from '../../model';
import { FLAG_AA, FLAG_TC, messageLength, RCODE } from '../../wire';
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

/**
 * AXFR (RFC 5936): SOA, every other record, SOA again, in as many messages as needed. IXFR requests get the same
 * full transfer (RFC 1995 §4 allows it when no incremental history is kept), except when the client already has
 * the current version or a newer one: then the answer is our SOA alone (RFC 1995 §2), as BIND answers.
 */
export function zoneTransfer(query: DecodedPacket, zone: ZoneData, signed = false): Buffer[] {
  const clientSerial = query.questions?.[0]?.type === 'IXFR' ? ixfrClientSerial(query) : undefined;
  if (clientSerial !== undefined && serialAtLeast(clientSerial, zone.soa.data.serial ?? 0)) {
    return [encodeResponse(query, { answers: [zone.soa] }, RCODE.NOERROR, FLAG_AA, signed)];
  }
  const records: RR[] = [];
  for (const node of zone.ownerNodes()) {
    for (const [type, rrs] of node) if (type !== 'SOA') records.push(...rrs);
  }
  const all: RR[] = [zone.soa, ...records, zone.soa];
  const messages: Buffer[] = [];
  let batch: RR[] = [];
  const flush = (): void => {
    if (!batch.length) return;
    const message = encodeResponse(
      messages.length === 0 ? query : { ...query, questions: [] },
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
    messages.push(message);
    batch = [];
  };
  let bytes = 0;
  for (const rr of all) {
    const size = messageLength({ answers: [rr] });
    if (batch.length >= RECORDS_PER_MESSAGE || bytes + size > MAX_BATCH_BYTES) {
      flush();
      bytes = 0;
    }
    batch.push(rr);
    bytes += size;
  }
  flush();
  return messages;
}
