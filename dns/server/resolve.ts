import { isInZone } from '../names';
import { parentOf, type Node, type RR, type ZoneData, type ZoneIndex } from './zone-index';

export type Rcode = 'NOERROR' | 'NXDOMAIN' | 'REFUSED';

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

/** Longest CNAME/DNAME chain we follow inside a zone (loops end here too). */
const MAX_CHAIN = 16;

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

function negative(zone: ZoneData): RR {
  return zone.negativeSoa;
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
  const zone = index.find(qname.toLowerCase());
  if (!zone) return { rcode: 'REFUSED', aa: false, answers: [], authorities: [], additionals: [] };
  const result = resolveIn(zone, qname, qtype);
  result.zone = zone;
  return result;
}

function resolveIn(zone: ZoneData, qname: string, qtype: string): Resolution {
  const answers: RR[] = [];
  let name = qname;

  for (let step = 0; step < MAX_CHAIN; step++) {
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
        answers.push(...dname, { name, type: 'CNAME', ttl: dname[0]?.ttl, class: 'IN', data: synthesized });
        rewritten = synthesized;
        break;
      }
    }
    if (rewritten !== undefined) {
      name = rewritten;
      continue;
    }

    let node = zone.nodes.get(lower);
    if (!node && !zone.names.has(lower)) {
      node = wildcardFor(zone, lower);
      if (!node) return { rcode: 'NXDOMAIN', aa: true, answers, authorities: [negative(zone)], additionals: [] };
    }
    if (!node) return nodata(zone, answers); // empty non-terminal

    if (qtype === 'ANY') {
      const firstSet = node.values().next().value;
      if (firstSet) answers.push(...withOwner(firstSet, name));
      return { rcode: 'NOERROR', aa: true, answers, authorities: [], additionals: [] };
    }
    const rrset = node.get(qtype);
    if (rrset) {
      answers.push(...withOwner(rrset, name));
      // as BIND does even with minimal-responses: addresses of in-zone name servers come along with an NS answer
      return {
        rcode: 'NOERROR',
        aa: true,
        answers,
        authorities: [],
        additionals: qtype === 'NS' ? glue(zone, rrset) : [],
      };
    }
    const cname = node.get('CNAME');
    if (cname && qtype !== 'CNAME') {
      answers.push(...withOwner(cname, name));
      name = targetOf(cname[0]).replace(/\.$/, '');
      continue;
    }
    return nodata(zone, answers);
  }
  return { rcode: 'NOERROR', aa: true, answers, authorities: [], additionals: [] };
}

function nodata(zone: ZoneData, answers: RR[]): Resolution {
  return { rcode: 'NOERROR', aa: true, answers, authorities: [negative(zone)], additionals: [] };
}

/** RFC 4592: the wildcard at the closest encloser answers for a name that does not exist. */
function wildcardFor(zone: ZoneData, lower: string): Node | undefined {
  let encloser = parentOf(lower);
  while (!zone.names.has(encloser)) {
    if (encloser === zone.name || encloser === '') break;
    encloser = parentOf(encloser);
  }
  return zone.nodes.get(encloser ? `*.${encloser}` : '*');
}
