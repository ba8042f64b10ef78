import type { SoaAnswer } from 'dns-packet';
import { nextTurn } from '../../platform/async';
import {
  type Node,
  parentOf,
  type RR,
  type SignedState,
  type SigningPolicy,
  type ZoneData,
  type ZoneKey,
} from '../zone';
import { signData } from './algorithms';

import { canonicalKey, covered, labelCount, signedData } from './canonical';
import { canonicalName, dnskeyRdata, dsRdata, KSK_FLAGS } from './keys';
import { hashedOwner, hashLabel, type Nsec3Data, nsec3paramRecord, nsec3Record } from './nsec3';
import { SignPool } from './sign-pool';
import { jitterOf, signingTimes } from './signing-times';

/**
 * Signs a zone in memory (RFC 4035 §2): DNSKEY at the apex, an RRSIG per authoritative RRset, an NSEC chain in
 * canonical order. The signed zone is a copy of the unsigned one with these records added to its nodes, so
 * answers, zone transfers and explicit queries for RRSIG, NSEC or DNSKEY all see them. A change re-signs only the
 * names it touched and their neighbours in the chain (`signPatch`).
 */

export const DEFAULT_SIGNING_POLICY: SigningPolicy = {
  signatureValidity: 14 * 86_400,
  inceptionOffset: 3600,
  dnskeyTtl: 3600,
};

const published = (k: ZoneKey, now: number): boolean => k.publishAt <= now && (k.deleteAt === null || now < k.deleteAt);
const signing = (k: ZoneKey, now: number): boolean =>
  published(k, now) && k.activateAt <= now && (k.inactiveAt === null || now < k.inactiveAt);

const cdsPublished = (k: ZoneKey, now: number): boolean =>
  published(k, now) && k.cdsAt != null && k.cdsAt <= now && (k.cdsUntil == null || now < k.cdsUntil);

/**
 * The next moment after `now` at which a key is published, starts or stops signing, leaves, or its CDS/CDNSKEY come
 * or go (null: none).
 */
export function nextKeyEvent(keys: readonly ZoneKey[], now: number): number | null {
  let next: number | null = null;
  for (const k of keys)
    for (const t of [k.publishAt, k.activateAt, k.inactiveAt, k.deleteAt, k.cdsAt ?? null, k.cdsUntil ?? null])
      if (t !== null && t > now && (next === null || t < next)) next = t;
  return next;
}

/** Keys that sign at `now`: KSKs the DNSKEY RRset, ZSKs the rest (a zone whose ZSKs are all inactive: the KSKs). */
function signers(keys: readonly ZoneKey[], now: number): { ksks: ZoneKey[]; zsks: ZoneKey[] } {
  const active = keys.filter((k) => signing(k, now));
  const ksks = active.filter((k) => k.flags === KSK_FLAGS);
  const zsks = active.filter((k) => k.flags !== KSK_FLAGS);
  return { ksks, zsks: zsks.length > 0 ? zsks : ksks };
}

/** One signing run: the keys and times every signature of it gets. */
export class Run {
  readonly inception: number;
  /** The latest expiration a signature gets (an RRset's is this less its jitter). */
  readonly expiration: number;
  private readonly jitter: number;
  /** Earliest expiration of the signatures made so far (Infinity: none). */
  earliest = Infinity;
  readonly ksks: ZoneKey[];
  readonly zsks: ZoneKey[];
  readonly signer: string;

  constructor(
    readonly zone: ZoneData,
    readonly keys: readonly ZoneKey[],
    readonly policy: SigningPolicy,
    readonly now: number,
  ) {
    this.inception = now - policy.inceptionOffset;
    this.expiration = now + policy.signatureValidity;
    this.jitter = signingTimes(policy).jitter;
    ({ ksks: this.ksks, zsks: this.zsks } = signers(keys, now));
    this.signer = zone.name === '' ? '.' : zone.name;
  }

  /** Names of the chain prepared so far, and in all (for progress reports). */
  namesDone = 0;
  namesTotal = 0;

  /**
   * Signing jobs not done yet (`deferring`): their RRSIGs have an empty signature until `flush` gives them one, so
   * that a pool of threads signs while this thread prepares the next names.
   */
  deferring = false;
  private pending: Array<{ data: { signature: Buffer }; key: ZoneKey; signed: Buffer }> = [];
  private readonly pkcs8 = new Map<string, Buffer>();

  /** Signs every deferred job: with `pool` (inline if it fails or is absent). */
  async flush(pool: SignPool | undefined): Promise<void> {
    const jobs = this.pending;
    this.pending = [];
    if (jobs.length === 0) return;
    const byKey = new Map<ZoneKey, typeof jobs>();
    for (const job of jobs) {
      const list = byKey.get(job.key);
      if (list) list.push(job);
      else byKey.set(job.key, [job]);
    }
    const batches: Array<typeof jobs> = [];
    for (const list of byKey.values())
      for (let i = 0; i < list.length; i += BATCH) batches.push(list.slice(i, i + BATCH));
    await Promise.all(
      batches.map(async (batch) => {
        const key = (batch[0] as (typeof jobs)[number]).key;
        let signatures: Buffer[] | undefined;
        if (pool) {
          let pkcs8 = this.pkcs8.get(key.id);
          if (!pkcs8) this.pkcs8.set(key.id, (pkcs8 = key.privateKey.export({ type: 'pkcs8', format: 'der' })));
          const job = { keyId: key.id, algorithm: key.algorithm.number, pkcs8, items: batch.map((j) => j.signed) };
          signatures = await pool.sign(job).catch(() => undefined); // a thread that failed: signed here instead
        }
        // a thread's signatures are views of one buffer it handed over: kept as they are (a slab of their own)
        batch.forEach((j, i) => {
          j.data.signature = signatures?.[i] ?? this.keep(signData(key.algorithm, key.privateKey, j.signed));
        });
      }),
    );
  }

  private slab = Buffer.allocUnsafe(0);
  private slabUsed = 0;

  /**
   * `signature` copied into a slab shared with others: a signature is 64 to 512 bytes, and a Buffer of its own costs
   * several hundred more (its ArrayBuffer and backing store) — most of a signed zone's memory otherwise.
   */
  private keep(signature: Buffer): Buffer {
    if (this.slabUsed + signature.length > this.slab.length) {
      this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, signature.length));
      this.slabUsed = 0;
    }
    const kept = this.slab.subarray(this.slabUsed, this.slabUsed + signature.length);
    signature.copy(kept);
    this.slabUsed += signature.length;
    return kept;
  }

  /** Canonical wire names: the signer's, and the owner's of the RRsets signed last (signed name by name). */
  private signerWire?: Buffer;
  private lastOwner = '';
  private lastOwnerWire?: Buffer;

  private wireNames(owner: string): { owner: Buffer; signer: Buffer } {
    this.signerWire ??= canonicalName(this.signer === '.' ? '' : this.signer);
    if (this.lastOwnerWire === undefined || owner !== this.lastOwner) {
      this.lastOwner = owner;
      this.lastOwnerWire = canonicalName(owner === '.' ? '' : owner);
    }
    return { owner: this.lastOwnerWire, signer: this.signerWire };
  }

  /** RRSIGs over one RRset (all of one owner and type), by `keys`. */
  sign(rrset: readonly RR[], keys: readonly ZoneKey[]): RR[] {
    const first = rrset[0];
    if (first === undefined) return [];
    const owner = first.name;
    const ttl = first.ttl ?? 0;
    const expiration = this.expiration - jitterOf(owner, first.type, this.jitter, this.now);
    if (expiration < this.earliest) this.earliest = expiration;
    const wire = this.wireNames(owner);
    const labels = labelCount(owner);
    return keys.map((key) => {
      // one object literal of fixed shape, its signature set after: objects made by spreading one into another got
      // a hidden class each (measured: a third of a signed zone's memory)
      const data = {
        typeCovered: first.type,
        algorithm: key.algorithm.number,
        labels,
        originalTTL: ttl,
        expiration,
        inception: this.inception,
        keyTag: key.tag,
        signersName: this.signer,
        signature: EMPTY,
      };
      const signed = signedData(data, owner, rrset, wire);
      if (!this.deferring) data.signature = this.keep(signData(key.algorithm, key.privateKey, signed));
      if (this.deferring) this.pending.push({ data, key, signed });
      return { name: owner, type: 'RRSIG', class: 'IN', ttl, data } as unknown as RR;
    });
  }

  /** The DNSKEY RRset: every published key, owned by the apex as the SOA names it. */
  dnskeys(apexName: string): RR[] {
    return this.keys
      .filter((k) => published(k, this.now))
      .map((k) => ({ ...k.dnskey, name: apexName, ttl: this.policy.dnskeyTtl }));
  }

  /**
   * The CDS (SHA-256) and CDNSKEY RRsets of the KSKs whose CDS is published now (RFC 7344 §4; none: none). Raw
   * RDATA: the wire writes types it has no codec for as given.
   */
  cdsRrsets(apexName: string): RR[][] {
    const keys = this.keys.filter((k) => cdsPublished(k, this.now));
    if (keys.length === 0) return [];
    const ttl = this.policy.dnskeyTtl;
    const rdatas = keys.map((k) => {
      const d = k.dnskey.data as unknown as { flags: number; algorithm: number; key: Buffer };
      return dnskeyRdata(d.flags, d.algorithm, d.key);
    });
    const rr = (type: string, data: Buffer) => ({ name: apexName, type, class: 'IN', ttl, data }) as unknown as RR;
    return [rdatas.map((rdata) => rr('CDS', dsRdata(apexName, rdata, 2))), rdatas.map((rdata) => rr('CDNSKEY', rdata))];
  }
}

/** Types at the apex a signed copy makes afresh (never taken from the records). */
const MADE_AT_APEX: ReadonlySet<string> = new Set(['DNSKEY', 'CDS', 'CDNSKEY']);

/** Whether `owner` (an index key) lies below a zone cut or DNAME of the zone: glue or occluded, never signed. */
function occluded(zone: ZoneData, apex: string, owner: string): boolean {
  if (owner === apex || zone.cutsAndDnames.size === 0) return false;
  for (let n = parentOf(owner); n !== apex && n !== ''; n = parentOf(n)) if (zone.cutsAndDnames.has(n)) return true;
  return false;
}

/** Types a signer makes afresh each time: the records of authenticated denial (NSEC, NSEC3 and its parameters). */
const DENIAL_TYPES: ReadonlySet<string> = new Set(['NSEC', 'NSEC3', 'NSEC3PARAM']);

/** Whether `owner` is the owner of an NSEC3 record (a hashed label right below the apex), not a name of the zone. */
function isHashed(zone: ZoneData, apex: string, owner: string): boolean {
  const label = apex === '' || apex === '.' ? owner : owner.slice(0, -apex.length - 1);
  return HASHED.test(label) && owner.endsWith(apex) && zone.nodes.peek(owner)?.has('NSEC3') === true;
}
const HASHED = /^[0-9a-v]{32}$/;

/** Whether `node` (not the apex) is a delegation point: NS at a name below the apex. */
const isCut = (node: Node, owner: string, apex: string): boolean => owner !== apex && node.has('NS');

/**
 * The records of one authoritative owner name, signed: its RRsets (at a delegation only NS, unsigned, and DS), an
 * RRSIG per signed RRset, and the NSEC to `next` (null: none — the zone's denial is NSEC3, made apart). The apex adds
 * DNSKEY (signed by the KSKs), the SOA's RRSIG and, under NSEC3, the NSEC3PARAM. `types`: the bitmap of the name's
 * NSEC or NSEC3 record. `keepSignatures`: the name did not change, only its successor: its RRSIGs are kept and only
 * the NSEC is made.
 */
function signedNode(
  run: Run,
  owner: string,
  node: Node,
  next: string | null,
  apex: string,
  soa: SoaAnswer,
  keepSignatures = false,
): { records: RR[]; types: string[] } {
  const cut = isCut(node, owner, apex);
  const out: RR[] = [];
  const rrsigs: RR[] = [];
  const types: string[] = [];
  let ownerName = owner === apex ? soa.name : undefined;
  for (const [type, rrset] of node) {
    if (DENIAL_TYPES.has(type) || type === 'SOA' || (owner === apex && MADE_AT_APEX.has(type))) continue; // made afresh
    if (type === 'RRSIG') {
      if (keepSignatures) rrsigs.push(...rrset.filter((r) => !DENIAL_TYPES.has(covered(r))));
      continue;
    }
    ownerName ??= rrset[0]?.name;
    out.push(...rrset);
    if (cut && type !== 'NS' && type !== 'DS') continue; // glue at the cut's own name: neither signed nor in the bitmap
    types.push(type);
    if (!keepSignatures && !(cut && type === 'NS')) rrsigs.push(...run.sign(rrset, run.zsks));
  }
  if (owner === apex) {
    const dnskeys = run.dnskeys(soa.name);
    if (dnskeys.length > 0) {
      out.push(...dnskeys);
      types.push('DNSKEY');
      if (!keepSignatures) rrsigs.push(...run.sign(dnskeys, run.ksks.length > 0 ? run.ksks : run.zsks));
    }
    // signed by the KSKs (a key in the parent's DS set, RFC 7344 §4.1) and the ZSKs
    for (const rrset of run.cdsRrsets(soa.name)) {
      out.push(...rrset);
      types.push(rrset[0]?.type ?? '');
      if (!keepSignatures) rrsigs.push(...run.sign(rrset, [...new Set([...run.ksks, ...run.zsks])]));
    }
    types.push('SOA');
    if (!keepSignatures) rrsigs.push(...run.sign([soa], run.zsks));
    if (next === null) {
      const param = [nsec3paramRecord(soa.name, run.zone.negativeTtl)];
      out.push(...param);
      types.push('NSEC3PARAM');
      rrsigs.push(...run.sign(param, run.zsks));
    }
  }
  if (next === null) {
    if (!cut || types.includes('DS')) types.push('RRSIG'); // an unsigned delegation has none (RFC 5155 §7.1)
    return { records: [...out, ...rrsigs], types };
  }
  const nsec = {
    name: ownerName ?? owner,
    type: 'NSEC',
    class: 'IN',
    ttl: run.zone.negativeTtl,
    data: { nextDomain: next === '' ? '.' : next, rrtypes: [...types, 'RRSIG', 'NSEC'] },
  } as unknown as RR;
  return { records: [...out, ...rrsigs, nsec, ...run.sign([nsec], run.zsks)], types };
}

/** The authoritative owner names of `zone` (index keys) in canonical order. */
function chainOf(zone: ZoneData, apex: string): { chain: string[]; chainKeys: string[]; hashed: string[] } {
  const keyed: Array<[string, string]> = [];
  const hashed: string[] = []; // NSEC3 owners of an earlier signing
  for (const owner of zone.nodes.keys())
    if (isHashed(zone, apex, owner)) hashed.push(owner);
    else if (!occluded(zone, apex, owner)) keyed.push([canonicalKey(owner === '.' ? '' : owner), owner]);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { chain: keyed.map(([, owner]) => owner), chainKeys: keyed.map(([key]) => key), hashed };
}

/** Whether the NSEC3 bitmap `types` of a name below the apex is an unsigned delegation's (NS, no DS). */
const unsignedCut = (types: readonly string[]): boolean => types.includes('NS') && !types.includes('DS');

/**
 * The names an NSEC3 chain covers (RFC 5155 §7.1), with their bitmaps: every authoritative name of `chain` (with
 * Opt-Out, not the unsigned delegations) and every empty non-terminal above one, by hashed label in hash order.
 */
function nsec3Names(
  apex: string,
  chain: readonly string[],
  bitmaps: ReadonlyMap<string, string[]>,
  optOut: boolean,
): Array<{ label: string; types: string[] }> {
  const names = new Map<string, string[]>();
  for (const owner of chain) {
    const types = bitmaps.get(owner) ?? [];
    // Opt-Out: an unsigned delegation, and an empty non-terminal with only such below it, are left out (as BIND's
    // dnssec-signzone -A does; RFC 5155 §7.1 allows it)
    if (optOut && owner !== apex && unsignedCut(types)) continue;
    names.set(owner, types);
    // canonical order: a name's ancestors came before it, so the first one known has all of its own known too
    if (owner !== apex)
      for (let n = parentOf(owner); n !== apex && n !== '' && !names.has(n); n = parentOf(n)) names.set(n, []);
  }
  const hashed = [...names].map(([name, types]) => ({ label: hashLabel(name), types }));
  return hashed.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/** The name an NSEC of `chain[i]` points to: the next one, the last back to the apex (model form, root ""). */
function nextOf(chain: readonly string[], i: number): string {
  const next = chain[(i + 1) % chain.length] ?? '';
  return next === '.' ? '' : next;
}

/**
 * `zone` signed whole with `keys` at `now` (seconds): a copy holding DNSKEY, RRSIGs and the NSEC chain; any such
 * records the copy had are made afresh. With no key signing at `now`, the zone as it is.
 */
export function signZone(zone: ZoneData, keys: readonly ZoneKey[], policy: SigningPolicy, now: number): ZoneData {
  const steps = signingSteps(new Run(zone, keys, policy, now));
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * signZone a few hundred names at a time, letting the event loop run between them: signing a zone of 100 000
 * records takes seconds, and meanwhile the copy it replaces keeps answering (DNS, API) instead of the process
 * stopping. A large zone is signed by the threads of the signing pool, while this thread prepares the next names.
 */
export async function signZoneInSteps(
  zone: ZoneData,
  keys: readonly ZoneKey[],
  policy: SigningPolicy,
  now: number,
  /** Told after each step: names signed so far, of how many. */
  progress?: (done: number, total: number) => void,
): Promise<ZoneData> {
  const run = new Run(zone, keys, policy, now);
  const pool = zone.nodes.size >= POOL_FROM_NAMES ? SignPool.shared() : undefined;
  run.deferring = pool !== undefined;
  const steps = signingSteps(run, run.deferring ? NAMES_PER_POOLED_STEP : NAMES_PER_STEP);
  const signing: Array<Promise<void>> = [];
  for (;;) {
    const step = steps.next();
    if (step.done) {
      await Promise.all(signing);
      return step.value;
    }
    if (step.value === 'names') {
      progress?.(run.namesDone, run.namesTotal);
      // steps sign on the threads while the next is prepared: two of them in flight, so that a thread that is done
      // with its share of one step has the next one's to go on with (one in flight left it idle at each step's end)
      if (signing.length >= STEPS_IN_FLIGHT) await signing.shift();
      signing.push(run.flush(pool));
      await nextTurn();
    } else {
      signing.push(run.flush(pool));
      await Promise.all(signing.splice(0)); // every signature made before the copy is finished
    }
  }
}

/** Names signed between two turns of the event loop (about 10 ms of ECDSA P-256 signing), or handed to the pool. */
const NAMES_PER_STEP = 50;
const NAMES_PER_POOLED_STEP = 400;
/** Steps handed to the pool and not signed yet, at most (see signZoneInSteps). */
const STEPS_IN_FLIGHT = 2;
/** Zones from this many names on are signed by the pool's threads (below, handing work over costs more). */
const POOL_FROM_NAMES = 2000;
/** Signatures per message to a thread. */
const BATCH = 256;
const EMPTY: Buffer = Buffer.alloc(0);
/** Bytes of one slab of signatures (see Run.keep). */
const SLAB_BYTES = 64 * 1024;

/** Signs a zone whole, yielding after each step of names, and once ('done') before the signed copy is made. */
function* signingSteps(run: Run, namesPerStep = NAMES_PER_STEP): Generator<'names' | 'done', ZoneData> {
  const zone = run.zone;
  if (run.zsks.length === 0) return zone;
  const apex = zone.soa.name.toLowerCase();
  const nsec3 = run.policy.nsec3 ?? null;
  const { chain, chainKeys, hashed } = chainOf(zone, apex);
  const owners = new Map<string, RR[]>();
  for (const owner of hashed) owners.set(owner, []); // an earlier NSEC3 chain goes (a new one replaces it)
  const bitmaps = new Map<string, string[]>();
  run.namesTotal = chain.length;
  for (let i = 0; i < chain.length; i++) {
    const owner = chain[i] ?? '';
    const node = zone.nodes.peek(owner);
    if (node) {
      const signed = signedNode(run, owner, node, nsec3 ? null : nextOf(chain, i), apex, zone.soa);
      owners.set(owner, signed.records);
      if (nsec3) bitmaps.set(owner, signed.types);
    }
    run.namesDone = i + 1;
    if (i % namesPerStep === namesPerStep - 1) yield 'names';
  }
  let denial = { chain, chainKeys };
  if (nsec3) {
    const names = nsec3Names(apex, chain, bitmaps, nsec3.optOut);
    for (let i = 0; i < names.length; i++) {
      const { label, types } = names[i] as { label: string; types: string[] };
      const next = names[(i + 1) % names.length]?.label ?? label;
      const rr = nsec3Record(label, zone.soa.name, next, types, nsec3.optOut, zone.negativeTtl);
      owners.set(hashedOwner(label, apex), [rr, ...run.sign([rr], run.zsks)]);
      if (i % namesPerStep === namesPerStep - 1) yield 'names';
    }
    denial = { chain: names.map((n) => hashedOwner(n.label, apex)), chainKeys: names.map((n) => n.label) };
  }
  yield 'done';
  const signed = zone.patched(zone.soa, owners);
  signed.signing = {
    keys: run.keys,
    policy: run.policy,
    ...denial,
    expiresAt: Number.isFinite(run.earliest) ? run.earliest : run.expiration,
    signedAt: run.now,
  };
  return signed;
}

/**
 * Whether a change of `owners` changes which names are occluded (a delegation or DNAME added, changed or gone
 * below the apex): then the zone must be signed whole, not patched.
 */
export function reshapes(previous: ZoneData, soa: SoaAnswer, owners: ReadonlyMap<string, readonly RR[]>): boolean {
  const apex = soa.name.toLowerCase();
  for (const [owner, records] of owners) {
    if (owner === apex) continue;
    if (records.some((r) => r.type === 'NS' || r.type === 'DNAME')) return true;
    if (previous.cutsAndDnames.has(owner) && !occluded(previous, apex, owner)) return true;
  }
  return false;
}

/** The unsigned copy a change of a signed zone starts from (a whole re-signing signs it). */
export function unsignedPatch(
  previous: ZoneData,
  soa: SoaAnswer,
  owners: ReadonlyMap<string, readonly RR[]>,
): ZoneData {
  return previous.patched(soa, stripped(owners, soa.name.toLowerCase()));
}

/** Index of `key` in sorted `keys`, or where it would go (as -(position) - 1). */
export function search(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = keys[mid] ?? '';
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

/**
 * The next copy of a signed zone after a change of the names in `owners` (each with all its records, unsigned, or
 * none: the name goes) and a new SOA: those names signed afresh, the NSEC of each name whose successor changed, and
 * the apex (its SOA's RRSIG follows the serial). A change of delegations or DNAMEs (which names are occluded) signs
 * the zone whole.
 */
export function signPatch(
  previous: ZoneData,
  soa: SoaAnswer,
  owners: ReadonlyMap<string, readonly RR[]>,
  now: number,
): ZoneData {
  const state = previous.signing;
  if (!state) throw new Error(`zone ${previous.name} is not signed`);
  const apex = soa.name.toLowerCase();
  if (reshapes(previous, soa, owners))
    return signZone(unsignedPatch(previous, soa, owners), state.keys, state.policy, now);
  const unsigned = previous.patched(soa, stripped(owners, apex));
  const run = new Run(unsigned, state.keys, state.policy, now);
  if (run.zsks.length === 0) return unsigned;
  if (state.policy.nsec3) return nsec3Patch(run, previous, unsigned, soa, owners);
  // the chain after the change, and the names whose NSEC must be made again
  const chain = [...state.chain];
  const chainKeys = [...state.chainKeys];
  const again = new Set<string>([apex]);
  for (const [owner, records] of owners) {
    if (owner === apex || occluded(unsigned, apex, owner)) continue;
    const key = canonicalKey(owner === '.' ? '' : owner);
    const at = search(chainKeys, key);
    if (records.length > 0) {
      again.add(owner);
      if (at >= 0) continue;
      chain.splice(-at - 1, 0, owner);
      chainKeys.splice(-at - 1, 0, key);
      again.add(chain[(-at - 2 + chain.length) % chain.length] ?? apex); // its predecessor points to it now
    } else if (at >= 0) {
      chain.splice(at, 1);
      chainKeys.splice(at, 1);
      again.add(chain[(at - 1 + chain.length) % chain.length] ?? apex);
    }
  }
  const signedOwners = stripped(owners, apex);
  for (const owner of again) {
    const at = search(chainKeys, canonicalKey(owner === '.' ? '' : owner));
    const node = unsigned.nodes.get(owner);
    if (at < 0 || !node) continue;
    // a name the change gave (and the apex: its SOA's RRSIG follows the serial) is signed afresh; a neighbour keeps
    // its RRSIGs and gets a new NSEC
    const keep = !owners.has(owner) && owner !== apex;
    signedOwners.set(owner, signedNode(run, owner, node, nextOf(chain, at), apex, soa, keep).records);
  }
  const signed = unsigned.patched(soa, signedOwners);
  signed.signing = { ...state, chain, chainKeys, expiresAt: Math.min(state.expiresAt, run.earliest) };
  return signed;
}

/**
 * signPatch of a zone denied by NSEC3: the names changed and the apex signed afresh; then, for them and every
 * ancestor (empty non-terminals come and go with the names below them), the hashed chain: a name that joins gets
 * an NSEC3 and its predecessor a new one, a name that leaves loses its NSEC3 and its predecessor points past it, a
 * name whose types changed gets a new bitmap. The other NSEC3 records and their signatures stay.
 */
function nsec3Patch(
  run: Run,
  previous: ZoneData,
  unsigned: ZoneData,
  soa: SoaAnswer,
  owners: ReadonlyMap<string, readonly RR[]>,
): ZoneData {
  const state = previous.signing as SignedState;
  const optOut = state.policy.nsec3?.optOut === true;
  const apex = soa.name.toLowerCase();
  const signedOwners = stripped(owners, apex);
  const bitmaps = new Map<string, string[]>();
  const affected = new Set<string>([apex]);
  for (const owner of owners.keys())
    for (let n = owner; n !== apex && n !== '' && !affected.has(n); n = parentOf(n)) affected.add(n);
  const chain = [...state.chain];
  const labels = [...state.chainKeys];
  const redo = new Set<string>(); // labels whose NSEC3 is made again
  const predecessor = (at: number): string => labels[(at - 1 + labels.length) % labels.length] ?? '';
  // Opt-Out: whether an empty non-terminal has a name of the chain below it (not only unsigned delegations)
  const covers = (ent: string): boolean => {
    const suffix = `.${ent}`;
    for (const owner of unsigned.nodes.keys()) {
      if (!owner.endsWith(suffix) || isHashed(unsigned, apex, owner) || occluded(unsigned, apex, owner)) continue;
      if (!unsigned.cutsAndDnames.has(owner)) return true;
      const node = unsigned.nodes.get(owner);
      if (!node?.has('NS') || node.has('DS')) return true; // a DNAME, or a signed delegation
    }
    return false;
  };
  for (const name of affected) {
    if (occluded(unsigned, apex, name)) continue; // glue: in no chain (which names are occluded did not change)
    const node = unsigned.nodes.get(name);
    const changed = owners.has(name) || name === apex;
    if (!changed && node) continue; // an unchanged name above a changed one: its NSEC3 stays
    let inChain = name === apex || (unsigned.names.has(name) && (node !== undefined || !optOut || covers(name)));
    if (node && changed) {
      const signed = signedNode(run, name, node, null, apex, soa);
      signedOwners.set(name, signed.records);
      bitmaps.set(name, signed.types);
      if (optOut && name !== apex && unsignedCut(signed.types)) inChain = false;
    }
    const label = hashLabel(name);
    const at = search(labels, label);
    if (inChain) {
      if (at < 0) {
        chain.splice(-at - 1, 0, hashedOwner(label, apex));
        labels.splice(-at - 1, 0, label);
        redo.add(predecessor(-at - 1));
      }
      redo.add(label);
      if (!bitmaps.has(name)) bitmaps.set(name, []); // an empty non-terminal
    } else if (at >= 0) {
      chain.splice(at, 1);
      labels.splice(at, 1);
      signedOwners.set(hashedOwner(label, apex), []);
      redo.add(predecessor(at));
      bitmaps.delete(name);
    }
  }
  const typesOf = new Map<string, string[]>();
  for (const [name, types] of bitmaps) typesOf.set(hashLabel(name), types);
  for (const label of redo) {
    const at = search(labels, label);
    if (at < 0) continue; // left the chain after it was marked
    const owner = hashedOwner(label, apex);
    const before = previous.nodes.get(owner)?.get('NSEC3')?.[0]?.data as unknown as Nsec3Data | undefined;
    const types = typesOf.get(label) ?? before?.rrtypes ?? [];
    const next = labels[(at + 1) % labels.length] ?? label;
    const rr = nsec3Record(label, soa.name, next, types, optOut, unsigned.negativeTtl);
    signedOwners.set(owner, [rr, ...run.sign([rr], run.zsks)]);
  }
  const signed = unsigned.patched(soa, signedOwners);
  signed.signing = { ...state, chain, chainKeys: labels, expiresAt: Math.min(state.expiresAt, run.earliest) };
  return signed;
}

/** Changed names' records as the store gave them: no DNSSEC records (a patch of a signed zone adds its own). */
function stripped(owners: ReadonlyMap<string, readonly RR[]>, apex: string): Map<string, RR[]> {
  const out = new Map<string, RR[]>();
  for (const [owner, records] of owners)
    out.set(
      owner,
      records.filter(
        (r) => !(owner === apex && MADE_AT_APEX.has(r.type)) && r.type !== 'RRSIG' && !DENIAL_TYPES.has(r.type),
      ),
    );
  return out;
}
