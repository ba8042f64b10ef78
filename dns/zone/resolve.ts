import { isInZone } from '../model';
import type { Node, RR } from './rr';
import { parentOf, type ZoneData, type ZoneIndex } from './zone-index';

export type Rcode = 'NOERROR' | 'NXDOMAIN' | 'REFUSED' | 'SERVFAIL' | 'YXDOMAIN';

export interface Resolution {
  rcode: Rcode;
  /** Authoritative answer (false for a referral to a delegated child). */
  aa: boolean;
  answers: RR[];
  authorities: RR[];
  additionals: RR[];
  /** The zone that answered (none for REFUSED). */
  zone?: ZoneData;
}

/**
 * How many times a CNAME or DNAME restarts the lookup with a new name, as in BIND 9 (named 9.18: "max. restarts
 * reached" after 11): a chain that would go on after that — a loop, a DNAME into its own subtree — is SERVFAIL with
 * the chain so far, each RRset once.
 */
const MAX_RESTARTS = 11;

/** The longest name in text form (no trailing dot, no escapes) whose wire form fits 255 octets. */
const MAX_NAME_TEXT = 253;

/**
 * On a copy of a zone's record made to answer under another owner name (the name as asked, a wildcard's match):
 * the record it copies, whose wire form after the owner name is the copy's too.
 */
export const ORIGIN: unique symbol = Symbol('origin');

function withOwner(records: readonly RR[], owner: string): RR[] {
  return records.map((r) => (r.name === owner ? r : ({ ...r, name: owner, [ORIGIN]: r } as unknown as RR)));
}

/** The name an NS, CNAME or DNAME record points to (dns-packet gives it as a string). */
function targetOf(rr: RR | undefined): string {
  const data = rr?.data;
  if (typeof data !== 'string') throw new Error(`${rr?.type ?? 'a'} record at ${rr?.name ?? '?'} has no target name`);
  return data;
}

/** A zone's negative-answer SOA with TTL 0, by zone copy. */
const zeroTtlSoa = new WeakMap<ZoneData, RR>();

/**
 * The SOA of a negative answer: TTL the lesser of its own and its MINIMUM (RFC 2308 §3); in an NXDOMAIN for a
 * question of type SOA, 0, as BIND gives it (named 9.18; its NODATA answers keep the TTL).
 */
function negative(zone: ZoneData, qtype: string, nxdomain: boolean): RR {
  if (qtype !== 'SOA' || !nxdomain) return zone.negativeSoa;
  let soa = zeroTtlSoa.get(zone);
  if (soa === undefined) zeroTtlSoa.set(zone, (soa = { ...zone.negativeSoa, ttl: 0 }));
  return soa;
}

/** A/AAAA of in-zone name server targets: glue for a referral. */
function glue(zone: ZoneData, ns: readonly RR[]): RR[] {
  const out: RR[] = [];
  for (const r of ns) {
    const target = targetOf(r).toLowerCase();
    const node = zone.nodes.get(target);
    if (!node) continue;
    out.push(...(node.get('A') ?? []), ...(node.get('AAAA') ?? []));
  }
  return out;
}

/**
 * Authoritative lookup (RFC 1034 §4.3.2) in the zones of `index`: delegations with glue, CNAME chains inside the
 * zone, DNAME substitution (RFC 6672), wildcards (RFC 4592), NXDOMAIN vs NODATA with the SOA for negative caching,
 * minimal answers to ANY (RFC 8482: one RRset). Names outside every zone are REFUSED.
 */
export function resolve(index: ZoneIndex, qname: string, qtype: string): Resolution {
  const lower = qname.toLowerCase();
  let zone = index.find(lower);
  // DS belongs to the parent side of a cut (RFC 4035 §3.1.4.1): at a zone's apex, asked of the parent when we
  // serve it too
  if (zone && qtype === 'DS' && zone.name === lower && lower !== '') zone = index.find(parentOf(lower)) ?? zone;
  if (!zone) return { rcode: 'REFUSED', aa: false, answers: [], authorities: [], additionals: [] };
  if (zone.unavailable) return { rcode: 'SERVFAIL', aa: false, answers: [], authorities: [], additionals: [], zone };
  const result = resolveIn(zone, qname, qtype);
  result.zone = zone;
  return result;
}

function resolveIn(zone: ZoneData, qname: string, qtype: string): Resolution {
  const answers: RR[] = [];
  let name = qname;

  for (let step = 0; ; step++) {
    const lower = name.toLowerCase();
    if (!isInZone(lower, zone.name)) break; // chain left the zone: answer what we have

    // Walk down from below the apex: a zone cut (NS) means a referral, a DNAME above the name rewrites it. The
    // ancestors are the suffixes of the name after each dot left of the apex, the highest first, then the name.
    // Only names with NS or DNAME matter there: none in most zones.
    let rewritten: string | undefined;
    const special = zone.cutsAndDnames;
    for (
      let p = lower === zone.name || special.size === 0 ? -1 : lower.length - zone.name.length - (zone.name ? 1 : 0);
      p >= 0;
    ) {
      const dot = p > 0 ? lower.lastIndexOf('.', p - 1) : -1;
      const ancestor = dot < 0 ? lower : lower.slice(dot + 1);
      p = dot;
      if (!special.has(ancestor)) continue;
      const node = zone.nodes.get(ancestor);
      if (!node) continue;
      const ns = node.get('NS');
      if (ns && !(ancestor === lower && qtype === 'DS')) {
        return { rcode: 'NOERROR', aa: answers.length > 0, answers, authorities: ns, additionals: glue(zone, ns) };
      }
      const dname = node.get('DNAME');
      if (dname && ancestor !== lower) {
        const target = targetOf(dname[0]).replace(/\.$/, '');
        const synthesized = `${name.slice(0, name.length - ancestor.length)}${target}`;
        addRRset(answers, dname);
        // RFC 6672 §2.2: a substitution longer than a name can be is YXDOMAIN, with the DNAME
        if (synthesized.length > MAX_NAME_TEXT) return answered(answers, [], 'YXDOMAIN');
        addRRset(answers, [{ name, type: 'CNAME', ttl: dname[0]?.ttl, class: 'IN', data: synthesized }]);
        // the synthesized CNAME answers a question for a CNAME (or for anything) at its owner, as a real one does
        if (qtype === 'CNAME' || qtype === 'ANY') return answered(answers);
        rewritten = synthesized;
        break;
      }
    }
    if (rewritten !== undefined) {
      if (step >= MAX_RESTARTS) return answered(answers, [], 'SERVFAIL');
      name = rewritten;
      continue;
    }

    let exact = zone.nodes.get(lower);
    // An NSEC3 record's owner is no name of the zone (RFC 5155 §7.2.8): NXDOMAIN whatever the type, NSEC3 too, as
    // BIND 9 answers
    const hashed = exact?.has('NSEC3') === true;
    if (hashed) exact = undefined;
    let node = exact;
    // A node's records carry its name as the master file or UPDATE wrote it, and answers give it so (as BIND does);
    // only a wildcard's records take the name asked for.
    if (!node && (hashed || !zone.names.has(lower))) {
      node = wildcardFor(zone, lower);
      if (!node)
        return { rcode: 'NXDOMAIN', aa: true, answers, authorities: [negative(zone, qtype, true)], additionals: [] };
    }
    if (!node) return nodata(zone, answers); // empty non-terminal

    if (qtype === 'ANY') {
      const firstSet = node.values().next().value;
      if (firstSet) addRRset(answers, node === exact ? firstSet : withOwner(firstSet, name));
      return answered(answers);
    }
    const rrset = node.get(qtype);
    if (rrset) {
      addRRset(answers, node === exact ? rrset : withOwner(rrset, name));
      return answered(answers, additionalFor(zone, qtype, rrset));
    }
    const cname = node.get('CNAME');
    // a CNAME stands for every type but itself and the DNSSEC types of its own name (RFC 2181 §10.1, RFC 4035 §2.5)
    if (cname && qtype !== 'CNAME' && qtype !== 'RRSIG' && qtype !== 'NSEC') {
      addRRset(answers, node === exact ? cname : withOwner(cname, name));
      if (step >= MAX_RESTARTS) return answered(answers, [], 'SERVFAIL');
      name = targetOf(cname[0]).replace(/\.$/, '');
      continue;
    }
    return nodata(zone, answers);
  }
  return answered(answers);
}

function answered(answers: RR[], additionals: RR[] = [], rcode: Rcode = 'NOERROR'): Resolution {
  return { rcode, aa: true, answers, authorities: [], additionals };
}

/** Adds an RRset to the answer unless the answer has it already (a loop comes back to it): each RRset once. */
function addRRset(answers: RR[], rrset: readonly RR[]): void {
  const first = rrset[0];
  if (first === undefined) return;
  if (answers.length > 0) {
    const owner = first.name.toLowerCase();
    if (answers.some((a) => a.type === first.type && a.name.toLowerCase() === owner)) return;
  }
  answers.push(...rrset);
}

/** The name an MX, SRV or NAPTR record points to, without the trailing dot. */
function pointedTo(data: unknown, field: 'exchange' | 'target' | 'replacement'): string | undefined {
  const name = (data as Record<string, unknown> | undefined)?.[field];
  return typeof name === 'string' ? name.replace(/\.$/, '') : undefined;
}

/**
 * The additional section of an answer of type `qtype`, as BIND 9 gives it with `minimal-responses no-auth`: the A
 * and AAAA records of the names that NS, MX and SRV records point to (glue for NS), for NAPTR the SRV records of an
 * "S" replacement (and the addresses of their targets) or the addresses of an "A" one; each name once.
 */
function additionalFor(zone: ZoneData, qtype: string, rrset: readonly RR[]): RR[] {
  if (qtype === 'NS') return glue(zone, rrset);
  if (qtype !== 'MX' && qtype !== 'SRV' && qtype !== 'NAPTR') return [];
  const out: RR[] = [];
  const seen = new Set<string>();
  const add = (name: string | undefined, type: 'A' | 'SRV') => {
    if (name === undefined) return;
    const key = `${type} ${name.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    const node = authoritativeNode(zone, name.toLowerCase());
    if (!node) return;
    // a node's own records keep their name's case (see resolveIn); a wildcard's take the name pointed to
    const own = (set: readonly RR[]) => (zone.nodes.get(name.toLowerCase()) === node ? set : withOwner(set, name));
    if (type === 'A') {
      for (const t of ['A', 'AAAA']) {
        const set = node.get(t);
        if (set) out.push(...own(set));
      }
      return;
    }
    const srv = node.get('SRV');
    if (!srv) return;
    out.push(...own(srv));
    for (const r of srv) add(pointedTo(r.data, 'target'), 'A');
  };
  for (const r of rrset) {
    if (qtype === 'MX') add(pointedTo(r.data, 'exchange'), 'A');
    else if (qtype === 'SRV') add(pointedTo(r.data, 'target'), 'A');
    else {
      // BIND looks at the flags one by one: the first "s" asks for SRV records, the first "a" for addresses
      const given = (r.data as { flags?: unknown } | undefined)?.flags;
      const flags = typeof given === 'string' ? given.toLowerCase() : '';
      const s = flags.indexOf('s');
      const a = flags.indexOf('a');
      if (s >= 0 && (a < 0 || s < a)) add(pointedTo(r.data, 'replacement'), 'SRV');
      else if (a >= 0) add(pointedTo(r.data, 'replacement'), 'A');
    }
  }
  return out;
}

/**
 * The records this zone answers for at `lower` with authority (a wildcard's for a name that does not exist), or
 * undefined when the name is outside the zone, at or below a zone cut, or below a DNAME.
 */
function authoritativeNode(zone: ZoneData, lower: string): Node | undefined {
  if (!isInZone(lower, zone.name)) return undefined;
  const special = zone.cutsAndDnames;
  if (special.size > 0) {
    for (let n = lower; n !== zone.name && n !== ''; n = parentOf(n)) {
      const node = special.has(n) ? zone.nodes.get(n) : undefined;
      if (node?.has('NS') || (n !== lower && node?.has('DNAME'))) return undefined;
    }
  }
  const node = zone.nodes.get(lower);
  if (node || zone.names.has(lower)) return node;
  return wildcardFor(zone, lower);
}

function nodata(zone: ZoneData, answers: RR[]): Resolution {
  return { rcode: 'NOERROR', aa: true, answers, authorities: [zone.negativeSoa], additionals: [] };
}

/** RFC 4592: the wildcard at the closest encloser answers for a name that does not exist. */
function wildcardFor(zone: ZoneData, lower: string): Node | undefined {
  return zone.nodes.get(wildcardAt(closestEncloser(zone, lower)));
}

/** The closest existing ancestor of a name that does not exist (RFC 4592 §3.3.1), the apex at most. */
export function closestEncloser(zone: ZoneData, lower: string): string {
  let encloser = parentOf(lower);
  while (!zone.names.has(encloser) && encloser !== zone.name && encloser !== '') encloser = parentOf(encloser);
  return encloser;
}

/** The wildcard at an encloser (`*` at the root). */
export const wildcardAt = (encloser: string): string => (encloser === '' ? '*' : `*.${encloser}`);
