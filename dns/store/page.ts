import { show } from './errors';
import { StoreError, type RecordPosition } from './types';

/** Largest page a store hands out in one call (the API's own page limit is lower). */
export const MAX_STORE_PAGE = 100_000;

/** Checks `limit` and `after` of a record filter; both stores page by the same keyset (name, type, value, id). */
export function checkPage(limit: unknown, after: unknown): void {
  if (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_STORE_PAGE))
    throw new StoreError('INVALID', `limit must be an integer from 1 to ${MAX_STORE_PAGE}`);
  if (after === undefined) return;
  const keys: Array<keyof RecordPosition> = ['name', 'type', 'value', 'id'];
  if (typeof after !== 'object' || after === null || keys.some((k) => typeof Reflect.get(after, k) !== 'string'))
    throw new StoreError('INVALID', 'after must be a record position {name, type, value, id} of strings');
}

/** Checks a serial given for a new zone (an imported master file's): an unsigned 32-bit number. */
export function checkCreationSerial(serial: unknown): number | undefined {
  if (serial === undefined) return undefined;
  if (!Number.isInteger(serial) || (serial as number) < 0 || (serial as number) > 0xffffffff)
    throw new StoreError('INVALID', `serial must be an integer from 0 to 4294967295 (got ${show(serial)})`);
  return serial as number;
}
