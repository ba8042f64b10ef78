/**
 * Byte sizes of graphql-sse's `next` messages, computed before graphql-sse prints them (its `onNext` hook runs just
 * before), so a stream can count a message's bytes before it takes it. Results are shared by every subscriber of an
 * event: a result's JSON size is measured once per result object.
 */
const jsonSizes = new WeakMap<object, number>();

/** UTF-8 bytes of `JSON.stringify(value)`, measured once per object. */
export function jsonBytes(value: unknown): number {
  if (typeof value !== 'object' || value === null) return Buffer.byteLength(JSON.stringify(value) ?? '');
  let size = jsonSizes.get(value);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(value));
    jsonSizes.set(value, size);
  }
  return size;
}

/** `event: next\ndata: ` before the JSON, `\n\n` after it (graphql-sse's `print`). */
const FRAME_BYTES = 20;
/** `{"id":` + `,"payload":` + `}` around the result in single-connection mode. */
const ENVELOPE_BYTES = 18;

/**
 * Bytes of the message graphql-sse prints for `payload`: the result itself in distinct-connections mode
 * (`operationId` null), `{"id":…,"payload":…}` in single-connection mode.
 */
export function nextMessageBytes(payload: unknown, operationId: string | null): number {
  const body = jsonBytes(payload);
  if (operationId === null) return FRAME_BYTES + body;
  return FRAME_BYTES + ENVELOPE_BYTES + Buffer.byteLength(JSON.stringify(operationId)) + body;
}
