import { MAX_TTL } from '../../../dns/model';
import { toolErrors } from './errors';

/** Record types the tool edits and asks for (case-sensitive, as in the original). */
export const EDITABLE_TYPES = [
  'A',
  'AAAA',
  'CNAME',
  'DNAME',
  'DS',
  'NS',
  'PTR',
  'SRV',
  'SSHFP',
  'TXT',
  'SPF',
  'MX',
] as const;
export type EditableType = (typeof EDITABLE_TYPES)[number];

export function editableType(type: string): EditableType {
  if (!(EDITABLE_TYPES as readonly string[]).includes(type)) throw toolErrors.invalidType(type);
  return type as EditableType;
}

/** An integer from 0 to 2^31 − 1 (the original accepted anything `is_numeric` and failed later in nsupdate). */
export function ttlOf(text: string): number {
  if (!/^\d{1,10}$/.test(text.trim())) throw toolErrors.invalidTtl();
  const ttl = Number(text.trim());
  if (ttl > MAX_TTL) throw toolErrors.invalidTtl();
  return ttl;
}

/** `ptr`: `true`, `t` or a non-zero number mean yes, everywhere (the original read delete's `ptr` differently). */
export function ptrWanted(text: string | undefined): boolean {
  if (text === undefined) return false;
  const v = text.trim().toLowerCase();
  if (v === 'true' || v === 't') return true;
  return /^-?\d+(\.\d+)?$/.test(v) && Number(v) !== 0;
}
