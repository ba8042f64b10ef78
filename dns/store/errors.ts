/** The StoreErrors every part of the store raises, and how a bad input is shown in their messages. */
import { StoreError } from './types';

/** An INVALID error; `index` names the change (or initial record) at fault. */
export const invalid = (message: string, index?: number): StoreError => new StoreError('INVALID', message, index);

/** A value of unknown type for a message: strings quoted and cut at 80 characters, other objects by their type. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  return typeof value;
}

export function closedError(): StoreError {
  return new StoreError('UNAVAILABLE', 'the zone store is closed');
}

/** A zone of the store may not take the name of a secondary zone (it would be served from two sources). */
export function secondaryConflict(name: string): StoreError {
  return new StoreError(
    'CONFLICT',
    `zone ${name || '.'} is served here as a secondary zone (transferred from its primary); remove the secondary zone first`,
  );
}
