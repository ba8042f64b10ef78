import {
  type Algorithm,
  algorithmByName,
  algorithmByNumber,
  ALGORITHMS,
  DEFAULT_ALGORITHM,
  dnskeyRdata,
  dsDigest,
  type KeyMaterial,
  keyTag,
  type KeyVault,
  KSK_FLAGS,
  newKeyMaterialAsync,
  nsec3ParamView,
  type Nsec3ParamView,
  seconds,
  storedKey,
  ZSK_FLAGS,
} from '../../../dns/dnssec';
import type { Zone } from '../../../dns/model';
import {
  StoreError,
  type DnssecDenial,
  type DnssecKey,
  type DnssecKeyChange,
  type DnssecKeyTimings,
  type ZoneStore,
} from '../../../dns/store';
import { apiError, apiErrorOf, asApi, invalid, invalidFields, type FieldError } from '../errors';
import type { ChangeFeed } from './changes';
import type { ProgressReport } from './operations';
import type { DnsServing, KeyedQueue, PreparedWrite } from './serving';
import { dsValue, normalDs, parentAmong } from './parent-ds';
import { zoneRef } from './zones';
import {
  type CdsPolicy,
  currentKey,
  describeRollover,
  kskDsSeen,
  kskEarliestCompletion,
  type KeyKind,
  kskRollover,
  kskStart,
  rolloverViews,
  type RolloverView,
} from './rollovers';

/**
 * DNSSEC of a zone through the API: its state, turning it on (a KSK and a ZSK) and off, and ZSK rollovers by
 * pre-publication (RFC 7583 §3.3.1). The keys live in the store with their timings; the DNS server signs from
 * them and follows their timings by itself, so a rollover advances with the clock and survives restarts.
 */

/** Timings of the rollover policy, in seconds (docs/dnssec.md, "Rollovers"). */
export interface DnssecPolicy {
  /** TTL of the DNSKEY RRset. */
  dnskeyTtl: number;
  /** How long a change takes to reach every secondary (Dprp). */
  propagationDelay: number;
  /** Margin added to the publication interval. */
  publishSafety: number;
  /** Margin added to the retire interval. */
  retireSafety: number;
  /** Validity of signatures. */
  signatureValidity: number;
  /** Lifetime of a ZSK and of a KSK (`expires_at`). */
  zskLifetime: number;
  kskLifetime: number;
  /** CDS/CDNSKEY: during KSK rollovers only, or always for the current KSK (lets a parent bootstrap, RFC 8078). */
  cdsPublish: CdsPolicy;
  /** The parent's DS TTL assumed when the DS is confirmed by hand (a DS check reads the real one). */
  parentDsTtl: number;
}

export const DEFAULT_DNSSEC_POLICY: DnssecPolicy = {
  dnskeyTtl: 3600,
  propagationDelay: 300,
  publishSafety: 3600,
  retireSafety: 3600,
  signatureValidity: 14 * 86_400,
  zskLifetime: 90 * 86_400,
  kskLifetime: 365 * 86_400,
  cdsPublish: 'rollover',
  parentDsTtl: 86_400,
};

export interface DnssecKeyView {
  id: string;
  /** Mnemonic (`ECDSAP256SHA256`). */
  algorithm: string;
  keyType: 'KSK' | 'ZSK';
  bits: number;
  createdAt: string;
  expiresAt: string;
  /** Beyond the seed: the key tag and where the key is in its life. */
  keyTag: number;
  state: 'published' | 'active' | 'retired';
  publishAt: string;
  activateAt: string;
  inactiveAt: string | null;
  deleteAt: string | null;
  /** A KSK's CDS/CDNSKEY: published from, until (null: never / while published); when the parent's DS was seen. */
  cdsAt: string | null;
  cdsUntil: string | null;
  dsSeenAt: string | null;
}

export interface DsRecordView {
  keyTag: string;
  /** The algorithm's number, as a string ("13"). */
  algorithm: string;
  digestType: string;
  /** Upper-case hex. */
  digest: string;
}

export interface DnssecStatus {
  enabled: boolean;
  keys: DnssecKeyView[];
  dsRecords: DsRecordView[];
  /** The rollovers in progress (at most one KSK and one ZSK), each with its steps and their dates. */
  rollovers: RolloverView[];
  /** How the zone denies existence while signed; null when it is not. */
  denial: DnssecDenial['denial'] | null;
  /** NSEC3's parameters (RFC 9276: fixed) and whether with Opt-Out; null unless the denial is NSEC3. */
  nsec3param: Nsec3ParamView | null;
}

export interface RolloverResult {
  success: boolean;
  message: string;
  oldKeyId: string;
  newKeyId: string;
  /** ZSK: when the rollover completes. KSK: the earliest it can (it waits for the parent's DS). */
  rolloverCompletionDate: string;
  keyType: KeyKind;
}

/** `key_type` of a rotation: KSK or ZSK; absent or null: ZSK (the seed's form). 422 otherwise. */
export function rotationKind(value: unknown): KeyKind {
  if (value === undefined || value === null || value === 'ZSK') return 'ZSK';
  if (value === 'KSK') return 'KSK';
  throw invalid('keyType', `keyType must be KSK or ZSK (got ${JSON.stringify(value)})`);
}

/** The key tag a DS confirmation names (optional): an integer from 0 to 65535. 422 otherwise. */
export function dsKeyTag(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65_535) return value;
  throw invalid('keyTag', `keyTag must be an integer from 0 to 65535 (got ${JSON.stringify(value)})`);
}

export interface DnssecInput {
  enable?: unknown;
  algorithm?: unknown;
  keySize?: unknown;
  /** NSEC (default) or NSEC3. */
  denial?: unknown;
  /** NSEC3 with Opt-Out (default false). */
  optOut?: unknown;
}

const iso = (s: number): string => new Date(s * 1000).toISOString();

export class DnssecService {
  constructor(
    private readonly store: ZoneStore,
    private readonly serving: DnsServing,
    private readonly feed: ChangeFeed,
    private readonly vault: KeyVault,
    /** Writes of one zone, one at a time (shared with zones and records). */
    private readonly writes: KeyedQueue,
    private readonly policy: DnssecPolicy = DEFAULT_DNSSEC_POLICY,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async status(name: string): Promise<DnssecStatus> {
    const zone = zoneRef(name);
    const keys = await asApi(() => this.store.listDnssecKeys(zone));
    return this.statusOf(zone, keys, await asApi(() => this.store.getDnssecDenial(zone)));
  }

  /** `POST /zones/{zone}/dnssec`: `enable` true (with `algorithm`, `key_size`) or false. */
  async set(name: string, input: DnssecInput, by: string): Promise<DnssecStatus> {
    return this.prepareSet(name, input, by).run();
  }

  /**
   * DNSSEC on or off, checked as far as the request's own values go (422), and the work that does it (404 no zone,
   * 409 on or off already, or a rollover in progress): what a background operation starts.
   */
  prepareSet(name: string, input: DnssecInput, by: string): PreparedWrite<DnssecStatus> {
    const zone = zoneRef(name);
    if (typeof input.enable !== 'boolean') throw invalid('enable', 'enable must be true or false');
    if (input.enable) {
      const { algorithm, bits } = keyChoice(input);
      const denial = denialChoice(input);
      const run = (progress?: ProgressReport) =>
        this.writes.run(zone, async () => {
          const keys = await asApi(() => this.store.listDnssecKeys(zone));
          if (keys.length > 0) return this.switchDenial(zone, keys, input, denial, by, progress);
          const materials = await Promise.all(
            [KSK_FLAGS, ZSK_FLAGS].map((f) => newKeyMaterialAsync(algorithm, f, bits)),
          );
          const now = this.now();
          // CDS/CDNSKEY of the first KSK at once when kept for the current KSK: a parent may bootstrap (RFC 8078)
          const cdsAt = this.policy.cdsPublish === 'always' ? now : null;
          const added = materials.map((material) =>
            this.newKey(zone, material, now, now, material.flags === KSK_FLAGS ? cdsAt : null),
          );
          // only onto no keys: another process that enabled it meanwhile wins, this one is the 409 below
          const chosen = denial ?? { denial: 'NSEC', optOut: false };
          const updated = await this.onKeys(zone, [], { add: added, denial: chosen });
          await this.written(zone, updated.serial, by, progress);
          return this.statusOf(zone, added, chosen);
        });
      return { zone, run };
    }
    // null is "not given", as for enable: true (GraphQL clients send null for an optional field left empty).
    const given = (['algorithm', 'keySize', 'denial', 'optOut'] as const).filter(
      (f) => input[f] !== undefined && input[f] !== null,
    );
    if (given.length)
      throw invalidFields(given.map((f) => ({ field: f, message: `${f} only goes with enable: true` })));
    const run = (progress?: ProgressReport) =>
      this.writes.run(zone, async () => {
        const keys = await asApi(() => this.store.listDnssecKeys(zone));
        if (keys.length === 0) throw apiError('CONFLICT', `DNSSEC is not enabled for zone ${zone}`);
        const rollover = this.rolloverOf(keys);
        if (rollover) {
          const kinds = rolloverViews(keys, this.now()).map((v) => v.keyType);
          throw apiError('CONFLICT', `cannot turn DNSSEC off during a ${kinds.join(' and a ')} rollover: ${rollover}`);
        }
        // the parent's DS first: should the keys' removal then fail, the zone is insecure for a while, never bogus
        await this.dropParentDs(zone, keys, by);
        const updated = await this.onKeys(zone, keys, { remove: 'all' });
        await this.written(zone, updated.serial, by, progress);
        return this.statusOf(zone, [], null);
      });
    return { zone, run };
  }

  /**
   * enable: true on a signed zone: with another denial (and no other algorithm or key size) the zone is signed with
   * it from the next serial on — whole, so each serial is all NSEC or all NSEC3 (docs/dnssec.md); otherwise the 409
   * it always was.
   */
  private async switchDenial(
    zone: string,
    keys: readonly DnssecKey[],
    input: DnssecInput,
    denial: DnssecDenial | null,
    by: string,
    progress?: ProgressReport,
  ): Promise<DnssecStatus> {
    const current = await asApi(() => this.store.getDnssecDenial(zone));
    const ksk = keys.find((k) => k.flags === KSK_FLAGS) ?? keys[0];
    const algorithm = input.algorithm === undefined || input.algorithm === null ? null : keyChoice(input).algorithm;
    const otherKeys =
      (algorithm !== null && algorithm.number !== ksk?.algorithm) ||
      (input.keySize !== undefined && input.keySize !== null && input.keySize !== ksk?.bits);
    if (denial === null || otherKeys)
      throw apiError(
        'CONFLICT',
        `DNSSEC is already enabled for zone ${zone}; turn it off first to change the algorithm`,
      );
    if (denial.denial === current.denial && denial.optOut === current.optOut)
      throw apiError(
        'CONFLICT',
        `DNSSEC is already enabled for zone ${zone} with ${denial.denial}${denial.optOut ? ' and Opt-Out' : ''}`,
      );
    // only onto the keys read: a rollover or off meanwhile makes this a 409
    const updated = await this.onKeys(zone, keys, { denial });
    await this.written(zone, updated.serial, by, progress);
    return this.statusOf(zone, keys, denial);
  }

  /**
   * `POST /zones/{zone}/dnssec/rotate`: a ZSK rollover by pre-publication (the default), or with `keyType` KSK a
   * KSK rollover by double-KSK. ZSK: the new ZSK is published now and signs from now + Ipub (Dprp + DNSKEY TTL +
   * publish safety); the old one stops signing then and leaves the DNSKEY RRset Iret later (Dprp + the largest TTL
   * of the zone's signatures + retire safety); `rollover_completion_date` is that moment. KSK: the new KSK is
   * published and signs the DNSKEY RRset now; after Ipub its CDS/CDNSKEY are published and the parent's DS for it
   * is waited for; the old KSK leaves the parent's DS TTL + Dprp + retire safety after the DS is seen. The date is
   * then the earliest possible (the DS seen the moment the key is ready). A ZSK and a KSK rollover may run at once.
   */
  async rotate(name: string, by: string, keyType?: unknown): Promise<RolloverResult> {
    return this.prepareRotate(name, by, keyType).run();
  }

  /** A rollover of the zone named (404 for a name that is none; 422 for a bad keyType) and its work: see rotate. */
  prepareRotate(name: string, by: string, keyType?: unknown): PreparedWrite<RolloverResult> {
    const zone = zoneRef(name);
    const kind = rotationKind(keyType);
    const run = (progress?: ProgressReport) =>
      this.writes.run(zone, async () => {
        const result = await this.startRollover(zone, kind);
        await this.written(zone, result.serial, by, progress);
        return result.answer;
      });
    return { zone, run };
  }

  /**
   * Starts a rollover of `kind` now (the API's rotate, and the scheduler's at a key's lifetime): 409 when DNSSEC is
   * off, one of that kind is in progress, or another writer changed the keys meanwhile. Not waited for over DNS.
   */
  async startRollover(zone: string, kind: KeyKind): Promise<{ serial: number; answer: RolloverResult }> {
    const keys = await asApi(() => this.store.listDnssecKeys(zone));
    if (keys.length === 0)
      throw apiError(
        'CONFLICT',
        `DNSSEC is not enabled for zone ${zone}: enable it first (POST /zones/${zone}/dnssec)`,
      );
    const now = this.now();
    const busy = rolloverViews(keys, now).find((v) => v.keyType === kind);
    if (busy) throw apiError('CONFLICT', `a ${kind} rollover is already in progress: ${describeRollover(busy)}`);
    const old = currentKey(keys, kind, now);
    if (!old) throw apiError('CONFLICT', `zone ${zone} has no active ${kind} to replace`);
    const algorithm = algorithmByNumber(old.algorithm);
    if (!algorithm)
      throw apiError('CONFLICT', `the ${kind} of zone ${zone} has an algorithm this server does not sign with`);
    const gone = keys.filter((k) => k.deleteAt !== null && (seconds(k.deleteAt) ?? 0) <= now).map((k) => k.id);
    const p = this.policy;
    if (kind === 'KSK') {
      const material = await newKeyMaterialAsync(algorithm, KSK_FLAGS, old.bits);
      const startedAt = this.now();
      const { readyAt, update } = kskStart(old, p, startedAt, p.cdsPublish);
      const fresh = this.newKey(zone, material, startedAt, startedAt, readyAt);
      // only onto the keys read: of two rotations at once (any processes) one starts, the other is a 409
      const updated = await this.onKeys(zone, keys, { add: [fresh], update, ...(gone.length ? { remove: gone } : {}) });
      const earliest = iso(kskEarliestCompletion(p, startedAt, p.parentDsTtl));
      return {
        serial: updated.serial,
        answer: {
          success: true,
          message: `KSK rollover started: key ${fresh.id} is published and signs the DNSKEY RRset now; its CDS/CDNSKEY are published at ${iso(readyAt)}, then the parent zone's DS for it is waited for (seen in the parent, or confirmed with POST /zones/${zone}/dnssec/ds-seen); key ${old.id} is removed the parent's DS TTL + ${p.propagationDelay + p.retireSafety} s after, at ${earliest} at the earliest`,
          oldKeyId: old.id,
          newKeyId: fresh.id,
          rolloverCompletionDate: earliest,
          keyType: 'KSK',
        },
      };
    }
    const maxTtl = await this.largestTtl(zone);
    const material = await newKeyMaterialAsync(algorithm, ZSK_FLAGS, old.bits);
    const startedAt = this.now();
    const activate = startedAt + p.propagationDelay + p.dnskeyTtl + p.publishSafety;
    const remove = activate + p.propagationDelay + maxTtl + p.retireSafety;
    const fresh = this.newKey(zone, material, startedAt, activate);
    const updated = await this.onKeys(zone, keys, {
      add: [fresh],
      update: [{ id: old.id, inactiveAt: iso(activate), deleteAt: iso(remove) }],
      ...(gone.length ? { remove: gone } : {}),
    });
    return {
      serial: updated.serial,
      answer: {
        success: true,
        message: `ZSK rollover started: key ${fresh.id} is published now and signs from ${iso(activate)}; key ${old.id} stops signing then and is removed at ${iso(remove)}`,
        oldKeyId: old.id,
        newKeyId: fresh.id,
        rolloverCompletionDate: iso(remove),
        keyType: 'ZSK',
      },
    };
  }

  /**
   * `POST /zones/{zone}/dnssec/ds-seen`: the parent zone's DS for the new KSK of the rollover in progress is there
   * (like Knot's `zone-ksk-submitted`); `keyTag`, when given, must be that key's. The old KSK leaves the parent's DS
   * TTL (DNSSEC_PARENT_DS_TTL_S) + Dprp + retire safety from now. 409 when no KSK rollover waits for a DS.
   */
  prepareDsSeen(name: string, by: string, keyTag?: unknown): PreparedWrite<DnssecStatus> {
    const zone = zoneRef(name);
    const tag = dsKeyTag(keyTag);
    const run = (progress?: ProgressReport) =>
      this.writes.run(zone, async () => {
        const { serial, keys } = await this.markDsSeen(zone, { keyTag: tag, parentDsTtl: this.policy.parentDsTtl });
        await this.written(zone, serial, by, progress);
        return this.statusOf(zone, keys, await asApi(() => this.store.getDnssecDenial(zone)));
      });
    return { zone, run };
  }

  async dsSeen(name: string, by: string, keyTag?: unknown): Promise<DnssecStatus> {
    return this.prepareDsSeen(name, by, keyTag).run();
  }

  /** The scheduler's markDsSeen: in the zone's queue of writes, then waited for over DNS. */
  async confirmDs(zone: string, seen: { keyId: string; parentDsTtl: number }, by: string): Promise<void> {
    await this.writes.run(zone, async () => {
      const { serial } = await this.markDsSeen(zone, seen);
      await this.written(zone, serial, by);
    });
  }

  /**
   * Records that the parent's DS for the new KSK was seen now (by hand or by a DS check that read `parentDsTtl`):
   * 409 unless a KSK rollover is ready and waits for it (or `keyTag`/`keyId` name another key).
   */
  async markDsSeen(
    zone: string,
    seen: { keyTag?: number | null; keyId?: string; parentDsTtl: number },
  ): Promise<{ serial: number; keys: DnssecKey[] }> {
    const keys = await asApi(() => this.store.listDnssecKeys(zone));
    const now = this.now();
    const r = kskRollover(keys, now);
    if (!r || r.step === 'retiring')
      throw apiError(
        'CONFLICT',
        r
          ? `the parent's DS for the new KSK ${r.fresh.id} of zone ${zone} was seen already (${r.fresh.dsSeenAt ?? ''}); the old KSK is removed at ${r.old.deleteAt ?? ''}`
          : `no KSK rollover of zone ${zone} waits for the parent's DS (start one with POST /zones/${zone}/dnssec/rotate {"key_type": "KSK"})`,
      );
    if (r.step === 'published')
      throw apiError(
        'CONFLICT',
        `the new KSK ${r.fresh.id} of zone ${zone} is not published long enough for the parent's DS to change: its CDS/CDNSKEY come at ${r.fresh.cdsAt ?? ''}; give the parent its DS from then`,
      );
    const tag = keyTag(dnskeyRdata(r.fresh.flags, r.fresh.algorithm, Buffer.from(r.fresh.publicKey, 'base64')));
    if ((seen.keyTag != null && seen.keyTag !== tag) || (seen.keyId !== undefined && seen.keyId !== r.fresh.id))
      throw apiError(
        'CONFLICT',
        `the KSK rollover of zone ${zone} waits for the DS of key ${r.fresh.id} (key tag ${tag}), not key tag ${seen.keyTag ?? seen.keyId ?? ''}`,
      );
    const { update } = kskDsSeen(r, this.policy, now, seen.parentDsTtl, this.policy.cdsPublish);
    // only while the DS is still unseen: of replicas that saw it at once, one records it
    const updated = await this.onKeys(zone, keys, { update }, [{ id: r.fresh.id, dsSeenAt: null }]);
    return { serial: updated.serial, keys: await asApi(() => this.store.listDnssecKeys(zone)) };
  }

  /**
   * Changes the zone's keys only if they are still `seen` (checked by the store inside the write). When they are
   * not, another writer got there first: 409 saying what state the keys are in now.
   */
  private async onKeys(
    zone: string,
    seen: readonly DnssecKey[],
    change: DnssecKeyChange,
    ifTimings?: DnssecKeyTimings[],
  ): Promise<Zone> {
    try {
      return await this.store.changeDnssecKeys(zone, change, {
        ifKeys: seen.map((k) => k.id),
        ...(ifTimings ? { ifTimings } : {}),
      });
    } catch (err) {
      if (!(err instanceof StoreError && err.code === 'PRECONDITION_FAILED')) throw apiErrorOf(err);
    }
    const now = await asApi(() => this.store.listDnssecKeys(zone));
    const rollover = this.rolloverOf(now);
    throw apiError(
      'CONFLICT',
      now.length === 0
        ? `DNSSEC was turned off for zone ${zone} meanwhile`
        : rollover
          ? `a rollover is already in progress: ${rollover}`
          : seen.length === 0
            ? `DNSSEC is already enabled for zone ${zone}; turn it off first to change the algorithm`
            : `the DNSSEC keys of zone ${zone} changed meanwhile; read them again`,
    );
  }

  /**
   * The DS records of `zone` in its parent zone, when that is ours, that point at the zone's KSKs (put there from
   * its CDS, or by hand): removed as the zone goes unsigned — left, they would make every answer of it bogus to a
   * validating resolver. Validators that cached the DS see the zone bogus until that TTL has run out.
   */
  private async dropParentDs(zone: string, keys: readonly DnssecKey[], by: string): Promise<void> {
    const zones = new Set((await asApi(() => this.store.listZones())).map((z) => z.name));
    const parent = parentAmong(zone, zones);
    if (parent === null) return;
    const ours = new Set(
      keys.filter((k) => k.flags === KSK_FLAGS).flatMap((k) => [dsValue(zone, k, 2), dsValue(zone, k, 4)]),
    );
    const records = await asApi(() => this.store.listRecords(parent, { name: zone, type: 'DS' }));
    const stale = records.filter((r) => ours.has(normalDs(r.value)));
    if (stale.length === 0) return;
    const { zone: after } = await asApi(() =>
      this.store.change(
        parent,
        stale.map((r) => ({ op: 'delete' as const, id: r.id })),
      ),
    );
    await this.written(parent, after.serial, by);
  }

  private async written(zone: string, serial: number, by: string, progress?: ProgressReport): Promise<void> {
    this.feed.attribute(zone, serial, by);
    await this.serving.served(zone, serial, progress);
  }

  private newKey(zone: string, material: KeyMaterial, now: number, activate: number, cdsAt?: number | null): DnssecKey {
    const lifetime = material.flags === KSK_FLAGS ? this.policy.kskLifetime : this.policy.zskLifetime;
    return storedKey(zone, material, this.vault, { publishAt: now, activateAt: activate, lifetime, cdsAt });
  }

  /** The largest TTL signatures of the zone carry (records, SOA, DNSKEY, NSEC): how long old ones may be cached. */
  private async largestTtl(zone: string): Promise<number> {
    const settings = await asApi(() => this.store.getZone(zone));
    let max = Math.max(this.policy.dnskeyTtl, settings?.defaultTtl ?? 0, settings?.minimum ?? 0);
    await asApi(() =>
      this.store.eachRecord(zone, (r) => {
        if (r.ttl > max) max = r.ttl;
      }),
    );
    return max;
  }

  private stateOf(key: DnssecKey, now: number): DnssecKeyView['state'] {
    if ((seconds(key.activateAt) ?? 0) > now) return 'published';
    const inactive = seconds(key.inactiveAt);
    return inactive !== null && inactive <= now ? 'retired' : 'active';
  }

  /** What the rollovers in progress wait for, in words; null when none is. */
  private rolloverOf(keys: readonly DnssecKey[]): string | null {
    const views = rolloverViews(keys, this.now());
    return views.length ? views.map(describeRollover).join('; ') : null;
  }

  private statusOf(zone: string, keys: readonly DnssecKey[], denial: DnssecDenial | null): DnssecStatus {
    const now = this.now();
    // Oldest first (timestamps are whole seconds: then the one signing first), of keys made together the KSK
    // first: the same order however the store breaks ties.
    const live = keys
      .filter((k) => k.deleteAt === null || (seconds(k.deleteAt) ?? 0) > now)
      .sort(
        (a, b) =>
          a.createdAt.localeCompare(b.createdAt) ||
          a.activateAt.localeCompare(b.activateAt) ||
          b.flags - a.flags ||
          (a.cdsAt ?? '').localeCompare(b.cdsAt ?? '') || // a KSK rollover's new key: its CDS come later
          a.id.localeCompare(b.id),
      );
    return {
      enabled: keys.length > 0,
      keys: live.map((k) => this.keyView(k, now)),
      dsRecords: live.filter((k) => k.flags === KSK_FLAGS).flatMap((k) => dsOf(zone, k)),
      rollovers: rolloverViews(keys, now),
      denial: keys.length > 0 && denial ? denial.denial : null,
      nsec3param: keys.length > 0 && denial?.denial === 'NSEC3' ? nsec3ParamView(denial.optOut) : null,
    };
  }

  private keyView(k: DnssecKey, now: number): DnssecKeyView {
    const rdata = dnskeyRdata(k.flags, k.algorithm, Buffer.from(k.publicKey, 'base64'));
    return {
      id: k.id,
      algorithm: algorithmByNumber(k.algorithm)?.name ?? String(k.algorithm),
      keyType: k.flags === KSK_FLAGS ? 'KSK' : 'ZSK',
      bits: k.bits,
      createdAt: k.createdAt,
      expiresAt: k.expiresAt,
      keyTag: keyTag(rdata),
      state: this.stateOf(k, now),
      publishAt: k.publishAt,
      activateAt: k.activateAt,
      inactiveAt: k.inactiveAt,
      deleteAt: k.deleteAt,
      cdsAt: k.cdsAt,
      cdsUntil: k.cdsUntil,
      dsSeenAt: k.dsSeenAt,
    };
  }
}

/** The DS records of a KSK: SHA-256 and SHA-384 digests, ready to give to the parent zone. */
function dsOf(zone: string, key: DnssecKey): DsRecordView[] {
  const rdata = dnskeyRdata(key.flags, key.algorithm, Buffer.from(key.publicKey, 'base64'));
  return ([2, 4] as const).map((digestType) => ({
    keyTag: String(keyTag(rdata)),
    algorithm: String(key.algorithm),
    digestType: String(digestType),
    digest: dsDigest(zone, rdata, digestType).toString('hex').toUpperCase(),
  }));
}

/**
 * The denial asked for (null: not given), checked: NSEC or NSEC3, Opt-Out a boolean and only with NSEC3 (422 naming
 * the field). NSEC3's iterations and salt are not a choice (RFC 9276: 0 and none).
 */
function denialChoice(input: DnssecInput): DnssecDenial | null {
  const problems: FieldError[] = [];
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(input.denial) && input.denial !== 'NSEC' && input.denial !== 'NSEC3')
    problems.push({ field: 'denial', message: `denial must be NSEC or NSEC3 (got ${JSON.stringify(input.denial)})` });
  if (given(input.optOut) && typeof input.optOut !== 'boolean')
    problems.push({ field: 'optOut', message: `optOut must be true or false (got ${JSON.stringify(input.optOut)})` });
  else if (input.optOut === true && input.denial !== 'NSEC3')
    problems.push({ field: 'optOut', message: 'optOut goes only with denial NSEC3 (Opt-Out is an NSEC3 flag)' });
  if (problems.length) throw invalidFields(problems);
  if (!given(input.denial)) return null;
  return { denial: input.denial as DnssecDenial['denial'], optOut: input.optOut === true };
}

/** The algorithm and key size asked for, checked (422 naming the field and what is allowed). */
function keyChoice(input: DnssecInput): { algorithm: Algorithm; bits: number } {
  const problems: FieldError[] = [];
  let algorithm = algorithmByName(DEFAULT_ALGORITHM) as Algorithm;
  if (input.algorithm !== undefined && input.algorithm !== null) {
    const found = typeof input.algorithm === 'string' ? algorithmByName(input.algorithm) : undefined;
    if (found) algorithm = found;
    else
      problems.push({
        field: 'algorithm',
        message: `algorithm must be one of ${ALGORITHMS.map((a) => a.name).join(', ')} (got ${JSON.stringify(input.algorithm)})`,
      });
  }
  let bits = algorithm.defaultBits;
  if (input.keySize !== undefined && input.keySize !== null && problems.length === 0) {
    const size = input.keySize;
    if (typeof size !== 'number' || !Number.isInteger(size))
      problems.push({ field: 'keySize', message: `keySize must be an integer (got ${JSON.stringify(size)})` });
    else if (size < algorithm.minBits || size > algorithm.maxBits)
      problems.push({
        field: 'keySize',
        message:
          algorithm.minBits === algorithm.maxBits
            ? `keySize must be ${algorithm.minBits} for ${algorithm.name}, the size of its curve, or left out (got ${size})`
            : `keySize must be from ${algorithm.minBits} to ${algorithm.maxBits} for ${algorithm.name} (got ${size})`,
      });
    else bits = size;
  }
  if (problems.length) throw invalidFields(problems);
  return { algorithm, bits };
}
