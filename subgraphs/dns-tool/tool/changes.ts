import type { UpdateOperation } from '../../../dns/client';
import { type EditableType, toolErrors } from '../protocol';
import { ipv4ReverseName, ipv6ReverseName } from './reverse';

/** One RFC 2136 UPDATE: to the zone's update server, with its key. */
export interface ZoneUpdate {
  zone: string;
  operations: UpdateOperation[];
}

/** What a create/delete/replace sends, in order, and the warnings the answer carries. */
export interface ChangePlan {
  /** The change itself: one UPDATE (replace deletes and adds in the same message). */
  main: ZoneUpdate;
  /** PTR steps, each its own UPDATE to the reverse zone, after the main change. */
  ptr: ZoneUpdate[];
  warnings: string[];
}

/** Finds the configured zone of a name (reverse zones for PTR steps). */
export type ZoneFinder = (fqdn: string) => string | null;

/** Types whose value is an address with a reverse name (A as in the original; AAAA beyond it, ip6.arpa). */
const ADDRESS_TYPES: ReadonlySet<string> = new Set(['A', 'AAAA']);

const MAX_STRING = 255;

/**
 * A value as the tool takes it, in presentation form: TXT and SPF given without quotes become quoted strings of at
 * most 255 characters each; anything else (and quoted TXT) is passed on as written.
 */
export function presentationValue(type: EditableType, value: string): string {
  if ((type !== 'TXT' && type !== 'SPF') || value.startsWith('"')) return value;
  const strings: string[] = [];
  const chars = [...value];
  for (let i = 0; i < chars.length || strings.length === 0; i += MAX_STRING)
    strings.push(
      `"${chars
        .slice(i, i + MAX_STRING)
        .join('')
        .replace(/["\\]/g, (c) => `\\${c}`)}"`,
    );
  return strings.join(' ');
}

/** Deletes that record when a value is given, else the whole set of the type at the name. */
function removal(fqdn: string, type: EditableType, value: string | undefined): UpdateOperation {
  return value === undefined
    ? { op: 'deleteRRset', name: fqdn, type }
    : { op: 'deleteRecord', name: fqdn, type, value: presentationValue(type, value) };
}

function reverseName(type: string, address: string): string | null {
  return type === 'AAAA' ? ipv6ReverseName(address) : ipv4ReverseName(address);
}

export interface CreateChange {
  zone: string;
  fqdn: string;
  type: EditableType;
  ttl: number;
  value: string;
  ptr: boolean;
}

export function planCreate(c: CreateChange, findZone: ZoneFinder): ChangePlan {
  const value = presentationValue(c.type, c.value);
  const plan: ChangePlan = {
    main: { zone: c.zone, operations: [{ op: 'add', name: c.fqdn, type: c.type, ttl: c.ttl, value }] },
    ptr: [],
    warnings: [],
  };
  if (!c.ptr) return plan;
  if (!ADDRESS_TYPES.has(c.type)) {
    plan.warnings.push(
      `Requested PTR record was not created: PTR record can be only created when you are inserting A record, you created ${c.type} record instead`,
    );
    return plan;
  }
  addPtr(plan, c.type, c.value, c.fqdn, c.ttl, findZone);
  return plan;
}

export interface DeleteChange {
  zone: string;
  fqdn: string;
  type: EditableType;
  /** Without a value the whole RRset of the type goes. */
  value?: string;
  ptr: boolean;
}

export function planDelete(d: DeleteChange, findZone: ZoneFinder): ChangePlan {
  const plan: ChangePlan = {
    main: { zone: d.zone, operations: [removal(d.fqdn, d.type, d.value)] },
    ptr: [],
    warnings: [],
  };
  if (!d.ptr) return plan;
  if (!ADDRESS_TYPES.has(d.type)) {
    plan.warnings.push(
      `Requested PTR record was not deleted: PTR record can be only deleted when you are changing A record, you deleted ${d.type} record instead`,
    );
    return plan;
  }
  deletePtr(plan, d.type, d.value, d.fqdn, findZone);
  return plan;
}

export interface ReplaceChange {
  zone: string;
  fqdn: string;
  type: EditableType;
  /** The old value; without it the whole old RRset is replaced. */
  value?: string;
  newFqdn: string;
  newType: EditableType;
  ttl: number;
  newValue: string;
  ptr: boolean;
}

/** Delete the old and add the new in **one** UPDATE: there is no moment without a record at the name. */
export function planReplace(r: ReplaceChange, findZone: ZoneFinder): ChangePlan {
  const remove = removal(r.fqdn, r.type, r.value);
  const add: UpdateOperation = {
    op: 'add',
    name: r.newFqdn,
    type: r.newType,
    ttl: r.ttl,
    value: presentationValue(r.newType, r.newValue),
  };
  const plan: ChangePlan = { main: { zone: r.zone, operations: [remove, add] }, ptr: [], warnings: [] };
  if (!r.ptr) return plan;
  if (!ADDRESS_TYPES.has(r.type) && !ADDRESS_TYPES.has(r.newType)) {
    plan.warnings.push(
      'You requested to modify underlying PTR record, but neither new or old record type is A record, ignoring PTR update request',
    );
    return plan;
  }
  if (ADDRESS_TYPES.has(r.type)) {
    if (r.value === undefined)
      plan.warnings.push(
        "Old PTR record was not deleted, because parameter value was not provided - so we don't know what to delete",
      );
    else deletePtr(plan, r.type, r.value, r.fqdn, findZone);
  }
  if (ADDRESS_TYPES.has(r.newType)) addPtr(plan, r.newType, r.newValue, r.newFqdn, r.ttl, findZone);
  return plan;
}

function addPtr(plan: ChangePlan, type: string, address: string, fqdn: string, ttl: number, findZone: ZoneFinder) {
  const reverse = reverseName(type, address.trim());
  const zone = reverse === null ? null : findZone(reverse);
  if (reverse === null || zone === null) {
    plan.warnings.push(`PTR record was not created: there is no PTR zone for record ${address}`);
    return;
  }
  plan.ptr.push({ zone, operations: [{ op: 'add', name: reverse, type: 'PTR', ttl, value: `${fqdn}.` }] });
}

function deletePtr(plan: ChangePlan, type: string, address: string | undefined, fqdn: string, findZone: ZoneFinder) {
  if (address === undefined) {
    plan.warnings.push(
      "Old PTR record was not deleted, because parameter value was not provided - so we don't know what to delete",
    );
    return;
  }
  const reverse = reverseName(type, address.trim());
  if (reverse === null) {
    plan.warnings.push(`PTR record was not deleted: record ${address} is not a valid IPv4 quad`);
    return;
  }
  const zone = findZone(reverse);
  if (zone === null) {
    plan.warnings.push(`PTR record was not deleted: there is no PTR zone for record ${address}`);
    return;
  }
  plan.ptr.push({ zone, operations: [{ op: 'deleteRecord', name: reverse, type: 'PTR', value: `${fqdn}.` }] });
}

/** The error of a PTR step the server refused after the main change was applied: the message says both. */
export function ptrStepFailed(reason: string): Error {
  return toolErrors.dns(`the record change was applied, but the PTR update failed: ${reason}`);
}
