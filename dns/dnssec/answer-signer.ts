import type { AnswerSigner } from '../server';
import {
  closestEncloser,
  ORIGIN,
  parentOf,
  type Resolution,
  type RR,
  type SignedState,
  wildcardAt,
  type ZoneData,
} from '../zone';
import { canonicalKey, covered } from './canonical';
import { hashLabel } from './nsec3';
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
    const proofs = zone.signing.policy.nsec3 ? new Nsec3Proofs(zone) : new Proofs(zone);
    // the answer section: each RRset, then its RRSIGs; a wildcard's also proves the name asked does not exist
    for (const rrset of rrsets(resolution.answers)) {
      answers.push(...rrset, ...this.signaturesOf(zone, rrset));
      if (fromWildcard(rrset)) proofs.wildcardAnswer(lower(rrset[0]?.name ?? ''));
    }
    const negative = resolution.authorities.some((r) => r.type === 'SOA');
    for (const rrset of rrsets(resolution.authorities)) {
      authorities.push(...rrset);
      const type = rrset[0]?.type;
      if (type === 'SOA') authorities.push(...this.signaturesOf(zone, rrset));
      else if (type === 'NS' && !resolution.aa) proofs.referral(lower(rrset[0]?.name ?? ''), authorities);
    }
    if (negative) this.denial(resolution, qname, proofs);
    authorities.push(...proofs.records());
    for (const rrset of rrsets(resolution.additionals)) additionals.push(...rrset, ...this.signaturesOf(zone, rrset));
    return { ...resolution, answers, authorities, additionals };
  }

  /** The proofs of a negative answer for the last name of the chain the answer followed. */
  private denial(resolution: Resolution, qname: string, proofs: Proofs): void {
    const name = lastName(qname, resolution.answers);
    if (resolution.rcode === 'NXDOMAIN') proofs.nxdomain(name);
    else proofs.nodata(name);
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
  protected readonly owners = new Set<string>();

  constructor(protected readonly zone: ZoneData) {}

  /** The name does not exist, nor a wildcard that would answer for it. */
  nxdomain(name: string): void {
    this.covering(name);
    this.covering(wildcardAt(closestEncloser(this.zone, name)));
  }

  /** The name has not the type asked for (or a wildcard matched but has not the type). */
  nodata(name: string): void {
    const zone = this.zone;
    if (zone.nodes.has(name)) this.at(name);
    else if (zone.names.has(name))
      this.covering(name); // an empty non-terminal: no NSEC of its own
    else {
      // a wildcard matched but has not the type: the name does not exist, the wildcard has no such type
      this.covering(name);
      this.at(wildcardAt(closestEncloser(zone, name)));
    }
  }

  /** A wildcard answered for `name`: no closer match exists. */
  wildcardAnswer(name: string): void {
    this.covering(name);
  }

  /** A referral to `cut`: its DS and their RRSIGs, or (an unsigned child) the proof that there is no DS. */
  referral(cut: string, out: RR[]): void {
    const node = this.zone.nodes.get(cut);
    const ds = node?.get('DS');
    if (node && ds) out.push(...ds, ...(node.get('RRSIG')?.filter((s) => covered(s) === 'DS') ?? []));
    else if (node) this.noDs(cut);
  }

  /** An unsigned delegation: its NSEC (NS, no DS). */
  protected noDs(cut: string): void {
    this.at(cut);
  }

  /** The NSEC at `name` (a name of the chain). */
  protected at(name: string): void {
    this.owners.add(name);
  }

  /** The NSEC whose owner comes before `name` in the chain and whose next name after it: it covers `name`. */
  protected covering(name: string): void {
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
      const type = node?.has('NSEC3') ? 'NSEC3' : 'NSEC';
      const records = node?.get(type);
      if (!records) continue;
      out.push(...records, ...(node?.get('RRSIG')?.filter((s) => covered(s) === type) ?? []));
    }
    return out;
  }
}

/**
 * NSEC3 records an answer needs (RFC 5155 §7.2). A name's hash is computed once per zone copy for names of the zone
 * (a bounded cache); a name that does not exist (a next closer name) is hashed per answer — one SHA-1 of a name.
 */
class Nsec3Proofs extends Proofs {
  private readonly state: SignedState;
  private readonly hashes: Map<string, string>;

  constructor(zone: ZoneData) {
    super(zone);
    this.state = zone.signing as SignedState;
    let hashes = HASHES.get(this.state);
    if (!hashes) HASHES.set(this.state, (hashes = new Map<string, string>()));
    this.hashes = hashes;
  }

  /** RFC 5155 §7.2.2: the closest encloser's NSEC3, one covering the next closer name, one covering the wildcard. */
  override nxdomain(name: string): void {
    const { encloser, nextCloser } = this.closestProvable(name);
    this.at(encloser);
    if (nextCloser !== null) this.covering(nextCloser);
    this.covering(wildcardAt(encloser));
  }

  /**
   * §7.2.3 the name's own NSEC3; §7.2.4 DS at a delegation the Opt-Out chain leaves out: the closest provable
   * encloser proof; §7.2.5 a wildcard without the type: the closest encloser proof and the wildcard's NSEC3.
   */
  override nodata(name: string): void {
    if (this.inChain(name)) return this.at(name);
    const { encloser, nextCloser } = this.closestProvable(name);
    this.at(encloser);
    if (nextCloser !== null) this.covering(nextCloser);
    if (!this.zone.names.has(name)) this.at(wildcardAt(encloser));
  }

  /** §7.2.6: the NSEC3 covering the next closer name (the closest encloser is the wildcard's parent). */
  override wildcardAnswer(name: string): void {
    this.covering(childToward(name, closestEncloser(this.zone, name)));
  }

  /** §7.2.7: the delegation's NSEC3, or (Opt-Out left it out) the closest provable encloser proof. */
  protected override noDs(cut: string): void {
    this.nodata(cut);
  }

  protected override at(name: string): void {
    const at = search(this.state.chainKeys, this.hash(name));
    if (at >= 0) this.owners.add(this.state.chain[at] ?? '');
  }

  protected override covering(name: string): void {
    const keys = this.state.chainKeys;
    if (keys.length === 0) return;
    const at = search(keys, this.hash(name));
    const before = at >= 0 ? at : -at - 2;
    this.owners.add(this.state.chain[(before + keys.length) % keys.length] ?? '');
  }

  private inChain(name: string): boolean {
    return this.zone.names.has(name) && search(this.state.chainKeys, this.hash(name)) >= 0;
  }

  /** The closest ancestor of `name` (or itself) with an NSEC3, and the name one label below it toward `name`. */
  private closestProvable(name: string): { encloser: string; nextCloser: string | null } {
    const apex = this.zone.name;
    let nextCloser: string | null = null;
    let encloser = name;
    while (encloser !== apex && encloser !== '' && !this.inChain(encloser)) {
      nextCloser = encloser;
      encloser = parentOf(encloser);
    }
    return { encloser, nextCloser };
  }

  private hash(name: string): string {
    let label = this.hashes.get(name);
    if (label === undefined) {
      label = hashLabel(name);
      // names of the zone are asked for again and again; one that does not exist is kept only while there is room
      if (this.hashes.size < MAX_HASHES || this.zone.names.has(name)) this.hashes.set(name, label);
    }
    return label;
  }
}

/** Per signed copy, hashed labels of the names answers needed. */
const HASHES = new WeakMap<SignedState, Map<string, string>>();
const MAX_HASHES = 100_000;

/** The ancestor of `name` (or itself) one label below `encloser`. */
function childToward(name: string, encloser: string): string {
  let child = name;
  while (parentOf(child) !== encloser && child !== '') child = parentOf(child);
  return child;
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
