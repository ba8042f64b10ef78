import type { SoaAnswer } from 'dns-packet';
import { nextTurn } from '../../platform/async';
import type { JournalStep, RR, ZoneData, ZoneKey } from '../zone';
import type { RrsigFields } from './canonical';
import { SignPool } from './sign-pool';
import { signingTimes } from './signing-times';
import { Run } from './zone-signer';

/**
 * A refresh of a signed zone's signatures (Knot's rrsig-refresh, BIND's re-signing in slices): instead of signing the
 * whole zone afresh when signatures near expiry, only the RRsets whose RRSIG expires within `signatureRefresh` (+
 * `signaturePreRefresh`) of now are signed again — NSEC, NSEC3 and the apex's DNSKEY, CDS and NSEC3PARAM as any
 * other — and the SOA for the new serial. Each is signed by the key that made its old signature (the keys are the
 * same as at the last whole signing: a key event signs whole). Every other signature, the chain and the records
 * stay; the new copy's `expiresAt` is the earliest expiration of all its signatures, read while looking.
 */

/** What a refresh did. */
export interface Refreshed {
  data: ZoneData;
  /** RRSIGs made afresh (the SOA's included). */
  resigned: number;
  /** Owner names whose signatures were looked at. */
  names: number;
  /**
   * The change for the zone's IXFR journal (the RRSIGs replaced and their successors): known here, so the journal
   * need not diff every record of thousands of names (seconds for a big slice).
   */
  step: JournalStep;
}

/** Names looked at between two turns of the event loop. */
const NAMES_PER_STEP = 2000;
/** From this many signatures due, the signing pool's threads sign them (below, handing work over costs more). */
const POOL_FROM_SIGNATURES = 2000;

/**
 * `previous` with its signatures due at `now` made afresh and `soa` (a new serial) signed, in steps (the event loop
 * runs between them; the pool's threads sign when many are due). Null when a due signature was made by a key that no
 * longer signs: then the zone must be signed whole.
 */
export async function refreshSignatures(previous: ZoneData, soa: SoaAnswer, now: number): Promise<Refreshed | null> {
  const state = previous.signing;
  if (!state) throw new Error(`zone ${previous.name} is not signed`);
  const times = signingTimes(state.policy);
  const dueBy = now + times.refresh + times.preRefresh;
  const apex = soa.name.toLowerCase();
  const newSerial = previous.soa.data.serial !== soa.data.serial;
  const run = new Run(previous, state.keys, state.policy, now);
  // a key that signs now (one that stopped since: the zone is signed whole instead)
  const signing = [...new Set([...run.ksks, ...run.zsks])];
  const keyOf = (sig: RrsigFields): ZoneKey | undefined =>
    signing.find((k) => k.tag === sig.keyTag && k.algorithm.number === sig.algorithm);
  /** A signature to make afresh: near expiry, or the SOA's when the serial changes. */
  const isDue = (owner: string, sig: RrsigFields): boolean =>
    sig.expiration <= dueBy || (newSerial && owner === apex && sig.typeCovered === 'SOA');

  // first the names with something due (a walk that signs nothing), so that the pool is used only when it pays
  const due: string[] = [];
  let earliest = Infinity;
  let names = 0;
  let dueCount = 0;
  for (const [owner, node] of previous.nodes.entries()) {
    const rrsigs = node.get('RRSIG');
    if (!rrsigs) continue;
    names++;
    let any = false;
    for (const rrsig of rrsigs) {
      const sig = rrsig.data as unknown as RrsigFields;
      if (isDue(owner, sig)) {
        any = true;
        dueCount++;
      } else if (sig.expiration < earliest) earliest = sig.expiration;
    }
    if (any) due.push(owner);
    if (names % NAMES_PER_STEP === 0) await nextTurn();
  }
  if (newSerial && !due.includes(apex)) due.push(apex); // a zone whose SOA was never signed: none to find, none due

  const pool = dueCount >= POOL_FROM_SIGNATURES ? SignPool.shared() : undefined;
  run.deferring = pool !== undefined;
  const owners = new Map<string, RR[]>();
  const deleted: RR[] = [];
  const added: RR[] = [];
  let resigned = 0;
  for (let i = 0; i < due.length; i++) {
    const owner = due[i] as string;
    const node = previous.nodes.peek(owner);
    if (!node) continue;
    const rrsigs: RR[] = [];
    for (const rrsig of node.get('RRSIG') ?? []) {
      const sig = rrsig.data as unknown as RrsigFields;
      if (!isDue(owner, sig)) {
        rrsigs.push(rrsig);
        continue;
      }
      const key = keyOf(sig);
      const rrset = owner === apex && sig.typeCovered === 'SOA' ? [soa] : node.get(sig.typeCovered);
      if (!key || !rrset || rrset.length === 0) return null;
      const made = run.sign(rrset, [key]);
      rrsigs.push(...made);
      deleted.push(rrsig);
      added.push(...made);
      resigned++;
    }
    const records: RR[] = [];
    for (const [type, rrs] of node)
      if (type === 'RRSIG') records.push(...rrsigs);
      else if (!(owner === apex && type === 'SOA')) records.push(...rrs); // the apex's SOA: `soa`, added by patched
    owners.set(owner, records);
    if (i % NAMES_PER_STEP === NAMES_PER_STEP - 1) {
      await run.flush(pool);
      await nextTurn();
    }
  }
  await run.flush(pool);
  const data = previous.patched(soa, owners);
  data.signing = { ...state, expiresAt: Math.min(earliest, run.earliest, run.expiration) };
  return { data, resigned, names, step: { from: previous.soa, deleted, to: soa, added } };
}
