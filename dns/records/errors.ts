/** A value of unknown type for an error message; never throws (unlike String() on odd objects). */
export function show(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(x);
  if (typeof x === 'number' || typeof x === 'boolean' || typeof x === 'bigint' || x === null || x === undefined)
    return String(x);
  if (Buffer.isBuffer(x)) return `<${x.length} octets>`;
  return Array.isArray(x) ? 'an array' : `a value of type ${typeof x}`;
}

/** Which part of a record a validation error is about. */
export type RecordField = 'name' | 'type' | 'ttl' | 'value';

/** A record (or one of its parts) that does not validate; the message says what is allowed. */
export class RecordValueError extends Error {
  override readonly name = 'RecordValueError';
  constructor(
    message: string,
    readonly field: RecordField = 'value',
  ) {
    super(message);
  }
}
