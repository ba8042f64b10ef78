import { KSK_FLAGS, seconds, ZSK_FLAGS } from '../../../dns/dnssec';
import type { DnssecKey, DnssecKeyTimings } from '../../../dns/store';

/**
 * Where a zone's rollovers are, worked out from its keys' times alone (pure: the clock is an argument), so that
 * every replica, the API and the scheduler agree and a restart loses nothing.
 *
 * ZSK (pre-publication, RFC 7583 §3.3.1): the new key is published, signs from `activateAt`; the old one stops then
 * and leaves at its `deleteAt`.
 *
 * KSK (double-KSK, RFC 7583 §3.3.2): the new key is published and signs the DNSKEY RRset at once beside the old one;
 * after Ipub it is `ready` (its `cdsAt`): CDS/CDNSKEY for it are published and the parent's DS is waited for, however
 * long. When the DS is seen (`dsSeenAt`), the old KSK leaves after the parent's DS TTL + Dprp + retire safety
 * (resolvers may hold the old DS that long), and the rollover is done.
 */

export type KeyKind = 'KSK' | 'ZSK';
export type KskStep = 'published' | 'ready' | 'retiring';
export type ZskStep = 'published' | 'retiring';

export interface RolloverStepView {
  step: 'published' | 'ready' | 'ds-seen' | 'active' | 'done';
  /** When it was or will be reached; null: it waits for the parent's DS. */
  at: string | null;
  done: boolean;
}

export interface RolloverView {
  keyType: KeyKind;
  step: KskStep | ZskStep;
  startedAt: string;
  oldKeyId: string;
  newKeyId: string;
  /** When the rollover completes; null while it waits for the parent's DS (KSK). */
  completesAt: string | null;
  steps: RolloverStepView[];
}

export interface KskRollover {
  old: DnssecKey;
  fresh: DnssecKey;
  step: KskStep;
}

export interface ZskRollover {
  old: DnssecKey;
  fresh: DnssecKey;
  step: ZskStep;
}

/** Timings of the policy a KSK rollover needs, seconds. */
export interface KskTimings {
  dnskeyTtl: number;
  propagationDelay: number;
  publishSafety: number;
  retireSafety: number;
}

const at = (iso: string | null): number => seconds(iso) ?? 0;
const iso = (s: number): string => new Date(s * 1000).toISOString();
const live = (k: DnssecKey, now: number): boolean => k.deleteAt === null || at(k.deleteAt) > now;
/** Oldest first; of keys published in the same second, the one whose CDS come later (none first) is the newer. */
const byPublication = (a: DnssecKey, b: DnssecKey): number =>
  a.publishAt.localeCompare(b.publishAt) ||
  (a.cdsAt ?? '').localeCompare(b.cdsAt ?? '') ||
  a.createdAt.localeCompare(b.createdAt) ||
  a.id.localeCompare(b.id);

/** Ipub: how long a new key is published before it is relied on (Dprp + DNSKEY TTL + publish safety). */
export const publicationInterval = (p: KskTimings): number => p.propagationDelay + p.dnskeyTtl + p.publishSafety;

/** How long after the parent's DS changed the old KSK leaves: the old DS may be cached that long. */
export const kskRetireInterval = (p: KskTimings, parentDsTtl: number): number =>
  parentDsTtl + p.propagationDelay + p.retireSafety;

/** The KSK rollover in progress at `now` (two KSKs in the DNSKEY RRset), or null. */
export function kskRollover(keys: readonly DnssecKey[], now: number): KskRollover | null {
  const ksks = keys.filter((k) => k.flags === KSK_FLAGS && live(k, now)).sort(byPublication);
  if (ksks.length < 2) return null;
  const old = ksks[0];
  const fresh = ksks[ksks.length - 1];
  if (!old || !fresh) return null;
  const step: KskStep =
    fresh.dsSeenAt !== null ? 'retiring' : fresh.cdsAt !== null && at(fresh.cdsAt) <= now ? 'ready' : 'published';
  return { old, fresh, step };
}

/** The ZSK rollover in progress at `now` (a ZSK waiting to sign, or one leaving), or null. */
export function zskRollover(keys: readonly DnssecKey[], now: number): ZskRollover | null {
  const zsks = keys.filter((k) => k.flags === ZSK_FLAGS && live(k, now)).sort(byPublication);
  const waiting = zsks.find((k) => at(k.activateAt) > now);
  const leaving = zsks.find((k) => k.deleteAt !== null);
  if (!waiting && !leaving) return null;
  const fresh = waiting ?? zsks.filter((k) => k !== leaving).pop();
  const old = leaving ?? zsks.find((k) => k !== waiting);
  if (!fresh || !old) return null;
  return { old, fresh, step: waiting ? 'published' : 'retiring' };
}

/** The KSK or ZSK that signs now and is not being replaced (the one a rollover of that kind replaces). */
export function currentKey(keys: readonly DnssecKey[], kind: KeyKind, now: number): DnssecKey | undefined {
  const flags = kind === 'KSK' ? KSK_FLAGS : ZSK_FLAGS;
  return keys
    .filter((k) => k.flags === flags && live(k, now) && at(k.activateAt) <= now && k.inactiveAt === null)
    .sort(byPublication)
    .pop();
}

/**
 * The key changes that start a KSK rollover at `now` replacing `old` with `fresh` (already made, published and
 * signing from now): `fresh` is ready — its CDS published — after Ipub. With CDS kept for the current KSK
 * (`always`), the old key's CDS end then.
 */
export function kskStart(
  old: DnssecKey,
  p: KskTimings,
  now: number,
  cds: CdsPolicy,
): { readyAt: number; update: DnssecKeyTimings[] } {
  const readyAt = now + publicationInterval(p);
  return { readyAt, update: cds === 'always' ? [{ id: old.id, cdsUntil: iso(readyAt) }] : [] };
}

/**
 * The key changes once the parent's DS for the new KSK is seen at `seenAt`: the old KSK stops signing and leaves
 * after the retire interval; with CDS only during rollovers, the new key's CDS go then too.
 */
export function kskDsSeen(
  r: KskRollover,
  p: KskTimings,
  seenAt: number,
  parentDsTtl: number,
  cds: CdsPolicy,
): { retireAt: number; update: DnssecKeyTimings[] } {
  const retireAt = seenAt + kskRetireInterval(p, parentDsTtl);
  const update: DnssecKeyTimings[] = [
    { id: r.fresh.id, dsSeenAt: iso(seenAt), ...(cds === 'rollover' ? { cdsUntil: iso(retireAt) } : {}) },
    { id: r.old.id, inactiveAt: iso(retireAt), deleteAt: iso(retireAt) },
  ];
  return { retireAt, update };
}

/** When CDS/CDNSKEY are published: during KSK rollovers only, or always for the current KSK (RFC 8078 bootstrap). */
export type CdsPolicy = 'rollover' | 'always';

/** The rollovers in progress, each with its steps and their dates. */
export function rolloverViews(keys: readonly DnssecKey[], now: number): RolloverView[] {
  const out: RolloverView[] = [];
  const k = kskRollover(keys, now);
  if (k) {
    const ready = k.fresh.cdsAt;
    const seen = k.fresh.dsSeenAt;
    const doneAt = seen === null ? null : k.old.deleteAt;
    out.push({
      keyType: 'KSK',
      step: k.step,
      startedAt: k.fresh.publishAt,
      oldKeyId: k.old.id,
      newKeyId: k.fresh.id,
      completesAt: doneAt,
      steps: [
        { step: 'published', at: k.fresh.publishAt, done: true },
        { step: 'ready', at: ready, done: k.step !== 'published' },
        { step: 'ds-seen', at: seen, done: seen !== null },
        { step: 'done', at: doneAt, done: false },
      ],
    });
  }
  const z = zskRollover(keys, now);
  if (z) {
    out.push({
      keyType: 'ZSK',
      step: z.step,
      startedAt: z.fresh.publishAt,
      oldKeyId: z.old.id,
      newKeyId: z.fresh.id,
      completesAt: z.old.deleteAt,
      steps: [
        { step: 'published', at: z.fresh.publishAt, done: true },
        { step: 'active', at: z.fresh.activateAt, done: at(z.fresh.activateAt) <= now },
        { step: 'done', at: z.old.deleteAt, done: false },
      ],
    });
  }
  return out;
}

/** The earliest a KSK rollover started at `now` can complete: the parent's DS seen the moment the key is ready. */
export const kskEarliestCompletion = (p: KskTimings, now: number, parentDsTtl: number): number =>
  now + publicationInterval(p) + kskRetireInterval(p, parentDsTtl);

/** What a rollover in progress waits for, in words. */
export function describeRollover(v: RolloverView): string {
  if (v.keyType === 'ZSK')
    return v.step === 'published'
      ? `the new ZSK ${v.newKeyId} is published and starts signing at ${v.steps[1]?.at ?? ''}; the old ZSK ${v.oldKeyId} is removed at ${v.completesAt ?? ''}, when the rollover completes`
      : `the old ZSK ${v.oldKeyId} is removed at ${v.completesAt ?? ''}, when the rollover completes`;
  switch (v.step) {
    case 'published':
      return `the new KSK ${v.newKeyId} is published; its CDS/CDNSKEY are published at ${v.steps[1]?.at ?? ''}, then the parent's DS for it is waited for`;
    case 'ready':
      return `the new KSK ${v.newKeyId} waits for the parent zone's DS for it (its CDS/CDNSKEY are published; confirm with POST /dnssec/ds-seen)`;
    default:
      return `the parent's DS for the new KSK ${v.newKeyId} was seen; the old KSK ${v.oldKeyId} is removed at ${v.completesAt ?? ''}, when the rollover completes`;
  }
}
