import type { AnswerSigner } from '../server';
import { closestEncloser, ORIGIN, type Resolution, type RR, wildcardAt, type ZoneData } from '../zone';
import { canonicalKey, covered } from './canonical';
import { search } from './zone-signer';

/**
 * What a signed zone adds to an answer for a query with the DO bit (RFC 4035 §3.1): the RRSIGs of every RRset it
 * gives, and the NSEC records (with theirs) that prove a name or type does not exist, that a wildcard answered, or
 * that a delegation is unsigned. Everything comes from the zone copy as signed; nothing is signed per query. Without
 * DO, or for a zone not signed, the answer is as resolved.
 */
export class DnssecAnswerSigner implements AnswerSigner {
  /** Per zone copy, RRSIG copies made for answers (a negative answer's SOA TTL, a wildcard's owner): made once. */
  private readonly copies = new WeakMap<ZoneData, Map<string, RR[]>>();

  sign(resolution: Resolution, qname: string, _qtype: string, dnssecOk: boolean): Resolution {
    const zone = resolution.zone;
    if (!dnssecOk || !zone?.signing) return resolution;
    const answers: RR[] = [];
    const authorities: RR[] = [];
    const additionals: RR[] = [];
    const proofs = new Proofs(zone);
    // the answer section: each RRset, then its RRSIGs; a wildcard's also proves the name asked does not exist
    for (const rrset of rrsets(resolution.answers)) {
      answers.push(...rrset, ...this.signaturesOf(zone, rrset));
      if (fromWildcard(rrset)) proofs.covering(lower(rrset[0]?.name ?? ''));
    }
    const negative = resolution.authorities.some((r) => r.type === 'SOA');
    for (const rrset of rrsets(resolution.authorities)) {
      authorities.push(...rrset);
      const type = rrset[0]?.type;
      if (type === 'SOA') authorities.push(...this.signaturesOf(zone, rrset));
      else if (type === 'NS' && !resolution.aa) authorities.push(...referralProof(zone, lower(rrset[0]?.name ?? '')));
    }
    if (negative) this.denial(zone, resolution, qname, proofs);
    authorities.push(...proofs.records());
    for (const rrset of rrsets(resolution.additionals)) additionals.push(...rrset, ...this.signaturesOf(zone, rrset));
    return { ...resolution, answers, authorities, additionals };
  }

  /** The NSEC proofs of a negative answer for the last name of the chain the answer followed. */
  private denial(zone: ZoneData, resolution: Resolution, qname: string, proofs: Proofs): void {
    const name = lastName(qname, resolution.answers);
    if (resolution.rcode === 'NXDOMAIN') {
      proofs.covering(name);
      proofs.covering(wildcardAt(closestEncloser(zone, name)));
      return;
    }
    if (zone.nodes.has(name)) proofs.at(name);
    else if (zone.names.has(name))
      proofs.covering(name); // an empty non-terminal: no NSEC of its own
    else {
      // a wildcard matched but has not the type: the name does not exist, the wildcard has no such type
      proofs.covering(name);
      proofs.at(wildcardAt(closestEncloser(zone, name)));
    }
  }

  /** The RRSIGs over one RRset of an answer: its owner's, or its wildcard's renamed; TTL as the RRset's. */
  private signaturesOf(zone: ZoneData, rrset: readonly RR[]): RR[] {
    const first = rrset[0];
    if (first === undefined) return [];
    const source = (first as { [ORIGIN]?: RR })[ORIGIN] ?? first;
    const node = zone.nodes.get(lower(source.name));
    const sigs = node?.get('RRSIG')?.filter((s) => covered(s) === first.type) ?? [];
    if (sigs.length === 0 || (source.name === first.name && sigs[0]?.ttl === first.ttl)) return sigs;
    // renamed (a wildcard's) or another TTL (a negative answer's SOA): copies, made once per zone copy
    let copies = this.copies.get(zone);
    if (!copies) this.copies.set(zone, (copies = new Map<string, RR[]>()));
    const key = `${first.name}\0${first.type}\0${first.ttl ?? ''}`;
    let made = copies.get(key);
    if (!made) {
      made = sigs.map((s): RR => ({ ...s, name: first.name, ttl: first.ttl }));
      if (copies.size < 10_000) copies.set(key, made);
    }
    return made;
  }
}

/** NSEC records (and their RRSIGs) an answer needs, each once, in the order asked for. */
class Proofs {
  private readonly owners = new Set<string>();

  constructor(private readonly zone: ZoneData) {}

  /** The NSEC at `name` (a name of the chain). */
  at(name: string): void {
    this.owners.add(name);
  }

  /** The NSEC whose owner comes before `name` in the chain and whose next name after it: it covers `name`. */
  covering(name: string): void {
    const state = this.zone.signing;
    if (!state || state.chain.length === 0) return;
    const at = search(state.chainKeys, canonicalKey(name === '.' ? '' : name));
    const before = at >= 0 ? at : -at - 2;
    this.owners.add(state.chain[(before + state.chain.length) % state.chain.length] ?? '');
  }

  records(): RR[] {
    const out: RR[] = [];
    for (const owner of this.owners) {
      const node = this.zone.nodes.get(owner);
      const nsec = node?.get('NSEC');
      if (!nsec) continue;
      out.push(...nsec, ...(node?.get('RRSIG')?.filter((s) => covered(s) === 'NSEC') ?? []));
    }
    return out;
  }
}

/** At a delegation: its DS and their RRSIGs, or (an unsigned child) the NSEC that shows there is no DS. */
function referralProof(zone: ZoneData, cut: string): RR[] {
  const node = zone.nodes.get(cut);
  if (!node) return [];
  const sigs = (type: string) => node.get('RRSIG')?.filter((s) => covered(s) === type) ?? [];
  const ds = node.get('DS');
  if (ds) return [...ds, ...sigs('DS')];
  return [...(node.get('NSEC') ?? []), ...sigs('NSEC')];
}

const lower = (name: string): string => name.toLowerCase();

/** Consecutive records of one owner and type. */
function rrsets(records: readonly RR[]): RR[][] {
  const out: RR[][] = [];
  for (const r of records) {
    const last = out[out.length - 1];
    const head = last?.[0];
    if (last && head && head.type === r.type && lower(head.name) === lower(r.name)) last.push(r);
    else out.push([r]);
  }
  return out;
}

/** Whether a wildcard answered for the RRset's owner (its records are copies of the wildcard's). */
function fromWildcard(rrset: readonly RR[]): boolean {
  const first = rrset[0];
  const source = first && (first as { [ORIGIN]?: RR })[ORIGIN];
  return source?.name.startsWith('*') ?? false;
}

/** The name an answer ends at: the question, then each CNAME's target (lower case, no trailing dot). */
function lastName(qname: string, answers: readonly RR[]): string {
  let name = lower(qname).replace(/\.$/, '');
  for (const r of answers)
    if (r.type === 'CNAME' && lower(r.name) === name && typeof r.data === 'string')
      name = lower(r.data).replace(/\.$/, '');
  return name;
}
