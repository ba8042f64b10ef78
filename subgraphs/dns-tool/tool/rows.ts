import type { ClientRecord } from '../../../dns/client';
import type { RecordType } from '../../../dns/model';
import { tokenizeValue } from '../../../dns/records';

/** One row of `list_records` / `get_record`: five strings as `dig` prints a record. */
export type ToolRow = [name: string, ttl: string, klass: string, type: string, rdata: string];

/** A character-string as BIND prints it: `"` and `\` escaped, bytes outside printable ASCII as `\DDD`. */
function digString(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${String(b).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** BIND writes long hex fields in chunks of 56 characters, upper case. */
function digHex(hex: string): string {
  return (hex.toUpperCase().match(/.{1,56}/g) ?? []).join(' ');
}

/** Types whose last field is one hex string (digest, fingerprint, certificate data); CDS is written as a DS. */
const HEX_TAIL: ReadonlySet<string> = new Set(['DS', 'CDS', 'SSHFP', 'TLSA']);

/** The RDATA of a record in dig's presentation. */
function digRdata(record: ClientRecord): string {
  if (record.type === 'TXT' || record.type === 'SPF')
    return tokenizeValue(record.value, record.type as RecordType)
      .map((t) => digString(t.bytes))
      .join(' ');
  const generic = /^\\# (\d+)(?: ([0-9a-fA-F]+))?$/.exec(record.value);
  if (generic) return generic[2] ? `\\# ${generic[1]} ${digHex(generic[2])}` : record.value;
  if (HEX_TAIL.has(record.type)) {
    const fields = record.value.split(' ');
    const fixed = fields.slice(0, record.type === 'SSHFP' ? 2 : 3);
    return [...fixed, digHex(fields.slice(fixed.length).join(''))].join(' ');
  }
  return record.value;
}

export function toolRow(record: ClientRecord): ToolRow {
  return [`${record.name}.`, String(record.ttl), 'IN', record.type, digRdata(record)];
}
