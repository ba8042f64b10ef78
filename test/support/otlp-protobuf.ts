/**
 * OTLP trace export requests as the JSON encoding spells them, and a decoder of the binary protobuf encoding into
 * that shape (ids as hex, as OTLP/JSON writes them). Written from opentelemetry-proto's trace.proto and common.proto
 * (field numbers below) rather than taken from a package: the decoders in node_modules are transitive dependencies of
 * other packages (protobufjs, an older @opentelemetry/otlp-transformer), and an independent reading also checks the
 * exporter's own serializer. It reads what the collector of the tests needs; fields it does not know are skipped.
 */

/** An OTLP attribute value (common.proto `AnyValue`). */
export interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values: AnyValue[] };
}

export interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
  links?: Array<{ traceId: string; spanId: string }>;
  droppedLinksCount?: number;
}

/** ExportTraceServiceRequest. */
export interface OtlpBody {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** One field of a message: its number, and its value read as the wire type it came with (else an error). */
class Field {
  constructor(
    readonly field: number,
    private readonly wire: number,
    private readonly value: bigint | Uint8Array,
  ) {}

  private as(wire: number): bigint | Uint8Array {
    if (this.wire !== wire) throw new Error(`protobuf: field ${this.field} has wire type ${this.wire}, not ${wire}`);
    return this.value;
  }
  /** A varint (int32/64, uint32, bool, enum). */
  varint = () => this.as(VARINT) as bigint;
  /** The bytes of a string, `bytes` or embedded message. */
  bytes = () => this.as(LENGTH_DELIMITED) as Uint8Array;
  double = () => Buffer.from(this.as(FIXED64) as Uint8Array).readDoubleLE(0);
  text = () => Buffer.from(this.bytes()).toString('utf8');
  hex = () => Buffer.from(this.bytes()).toString('hex');
  number = () => Number(this.varint());
}

/** A message's fields in order; unknown ones are read too (and left to the caller to skip). */
function fields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error('protobuf: truncated varint');
      const byte = bytes[at++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  const take = (n: number): Uint8Array => {
    if (at + n > bytes.length) throw new Error('protobuf: truncated field');
    at += n;
    return bytes.subarray(at - n, at);
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    const wire = tag & 7;
    if (wire === VARINT) out.push(new Field(field, wire, varint()));
    else if (wire === FIXED64) out.push(new Field(field, wire, take(8)));
    else if (wire === LENGTH_DELIMITED) out.push(new Field(field, wire, take(Number(varint()))));
    else if (wire === FIXED32) out.push(new Field(field, wire, take(4)));
    else throw new Error(`protobuf: wire type ${wire} of field ${field} is not one of proto3's`);
  }
  return out;
}

/** The embedded messages of a repeated field. */
const repeated = (bytes: Uint8Array, field: number) =>
  fields(bytes)
    .filter((f) => f.field === field)
    .map((f) => f.bytes());

/** An int64 as a number when it is exact, else as its decimal text (as OTLP/JSON may write it). */
const int64 = (value: bigint): number | string => {
  const signed = BigInt.asIntN(64, value);
  return Number.isSafeInteger(Number(signed)) ? Number(signed) : signed.toString();
};

function anyValue(bytes: Uint8Array): AnyValue {
  const value: AnyValue = {};
  for (const f of fields(bytes)) {
    if (f.field === 1) value.stringValue = f.text();
    else if (f.field === 2) value.boolValue = f.varint() !== 0n;
    else if (f.field === 3) value.intValue = int64(f.varint());
    else if (f.field === 4) value.doubleValue = f.double();
    else if (f.field === 5) value.arrayValue = { values: repeated(f.bytes(), 1).map(anyValue) };
  }
  return value;
}

function keyValue(bytes: Uint8Array): KeyValue {
  const kv: KeyValue = { key: '', value: {} };
  for (const f of fields(bytes)) {
    if (f.field === 1) kv.key = f.text();
    else if (f.field === 2) kv.value = anyValue(f.bytes());
  }
  return kv;
}

function link(bytes: Uint8Array): { traceId: string; spanId: string } {
  const l = { traceId: '', spanId: '' };
  for (const f of fields(bytes)) {
    if (f.field === 1) l.traceId = f.hex();
    else if (f.field === 2) l.spanId = f.hex();
  }
  return l;
}

function status(bytes: Uint8Array): { code?: number; message?: string } {
  const s: { code?: number; message?: string } = {};
  for (const f of fields(bytes)) {
    if (f.field === 2) s.message = f.text();
    else if (f.field === 3) s.code = f.number();
  }
  return s;
}

function span(bytes: Uint8Array): OtlpSpan {
  const s: OtlpSpan = { traceId: '', spanId: '', name: '', kind: 0, attributes: [], links: [] };
  for (const f of fields(bytes)) {
    if (f.field === 1) s.traceId = f.hex();
    else if (f.field === 2) s.spanId = f.hex();
    else if (f.field === 4) s.parentSpanId = f.hex();
    else if (f.field === 5) s.name = f.text();
    else if (f.field === 6) s.kind = f.number();
    else if (f.field === 9) s.attributes?.push(keyValue(f.bytes()));
    else if (f.field === 13) s.links?.push(link(f.bytes()));
    else if (f.field === 14) s.droppedLinksCount = f.number();
    else if (f.field === 15) s.status = status(f.bytes());
  }
  return s;
}

/** An ExportTraceServiceRequest sent as `application/x-protobuf`, in the shape of its JSON encoding. */
export function decodeTraceRequest(bytes: Uint8Array): OtlpBody {
  return {
    resourceSpans: repeated(bytes, 1).map((rs) => {
      const resource = repeated(rs, 1)[0];
      return {
        ...(resource ? { resource: { attributes: repeated(resource, 1).map(keyValue) } } : {}),
        scopeSpans: repeated(rs, 2).map((ss) => ({ spans: repeated(ss, 2).map(span) })),
      };
    }),
  };
}
