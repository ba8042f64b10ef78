import * as packet from 'dns-packet';
import type { DecodedPacket } from 'dns-packet';
import { encodeResponse } from './respond';
import { RCODE, FLAG_AA } from './wire';
import type { RR, ZoneData } from './zone-index';

/** Records per AXFR message: keeps every message well under 64 KiB without name compression. */
const RECORDS_PER_MESSAGE = 100;
const MAX_MESSAGE_BYTES = 60_000;

/**
 * AXFR (RFC 5936): SOA, every other record, SOA again, in as many messages as needed. IXFR requests get the same
 * full transfer (RFC 1995 §4 allows it when no incremental history is kept).
 */
export function zoneTransfer(query: DecodedPacket, zone: ZoneData): Buffer[] {
  const records: RR[] = [];
  for (const node of zone.nodes.values()) {
    for (const [type, rrs] of node) if (type !== 'SOA') records.push(...rrs);
  }
  const all: RR[] = [zone.soa, ...records, zone.soa];
  const messages: Buffer[] = [];
  let batch: RR[] = [];
  const flush = (): void => {
    if (batch.length) messages.push(encodeResponse(messages.length === 0 ? query : { ...query, questions: [] }, { answers: batch }, RCODE.NOERROR, FLAG_AA));
    batch = [];
  };
  let bytes = 0;
  for (const rr of all) {
    const size = packet.encodingLength({ answers: [rr] });
    if (batch.length >= RECORDS_PER_MESSAGE || bytes + size > MAX_MESSAGE_BYTES) {
      flush();
      bytes = 0;
    }
    batch.push(rr);
    bytes += size;
  }
  flush();
  return messages;
}
