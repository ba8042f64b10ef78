import type { SoaAnswer } from 'dns-packet';
import type { SignedState } from './signed-state';
import type { RecordData } from '../model';
import { runAtOnce, sortSteps } from '../../platform/async';
import { cmp } from '../store';
import { LayeredMap } from './layered-map';
import { NodePacker, NodeTable, type NodePack } from './node-pack';
import { addTo, type Node, type RR } from './rr';
import { ZoneJournal, type JournalStep, type Lineage } from './journal';

/** The parts of a zone copy (see ZoneData). */
export interface Tree {
  nodes: NodeTable;
  names: LayeredMap<number>;
  cutsAndDnames: LayeredMap<true>;
  /** Nodes iterate in the order of a fresh build (no patch added an owner name). */
  ordered: boolean;
}

/**
 * One zone in memory, ready to answer from: every lookup the server makes is a map access. Built from the store,
 * then replaced on every change by a patched copy (`patched`), never changed in place: an answer computed from a copy
 * stays true to that copy, and the copy it replaced is `retired`. Copies share what did not change.
 */
export class ZoneData {
  /** Owner name (lower case) → records. */
  readonly nodes: NodeTable;
  /**
   * Every name that exists in the tree, including empty non-terminals (they give NODATA, not NXDOMAIN), with the
   * number of owner names at or below it: a patch that removes the last one below a name removes the name.
   */
  readonly names: LayeredMap<number>;
  /** Names below the apex with NS (zone cuts) or DNAME records: the only ones a lookup must check on its way down. */
  readonly cutsAndDnames: LayeredMap<true>;
  /** Set when the index replaced or dropped this copy: answers computed from it (cached ones) are stale. */
  retired = false;
  /** Set on a signed copy (DNSSEC): what the next change needs to sign it again, and what answers need. */
  signing?: SignedState;
  /** Set by `patched` until the index serves the copy: the copy it came from and the names changed (for IXFR). */
  lineage?: Lineage | undefined;
  /**
   * Set on the copy of a secondary zone that expired or was never transferred: every answer from it is SERVFAIL and
   * it is not transferred, as BIND answers for such a zone (docs/dns-server.md, "Secondary zones").
   */
  unavailable = false;
  /**
   * The nodes buffer of the whole image this copy was read from (zone-image.ts), while the copy is unchanged (a
   * patch makes a copy without it): a whole image of it is that buffer again, not a copy.
   */
  imageNodes?: Buffer;
  private readonly ordered: boolean;
  private sorted?: string[];

  /** Whether the node table is in owner order already (built from the store, not patched with new names since). */
  get inOwnerOrder(): boolean {
    return this.ordered;
  }

  /** A zone built from its SOA and records in the order the store lists them (`tree`: a patched copy's parts). */
  constructor(
    readonly name: string,
    readonly soa: SoaAnswer,
    records: readonly RR[],
    tree?: Tree,
  ) {
    if (!tree) {
      const nodes = new Map<string, Node>();
      const names = new Map<string, number>();
      const cuts = new Map<string, true>();
      for (let i = -1; i < records.length; i++) {
        const r = i < 0 ? soa : records[i];
        if (r === undefined) continue;
        const owner = r.name.toLowerCase();
        let node = nodes.get(owner);
        if (!node) {
          nodes.set(owner, (node = new Map<string, RR[]>()));
          countNames(
            name,
            owner,
            1,
            (n) => names.get(n) ?? 0,
            (n, c) => names.set(n, c),
          );
        }
        addTo(node, r);
        if (isCutOrDname(name, owner, r.type)) cuts.set(owner, true);
      }
      tree = {
        nodes: NodeTable.of(nodes),
        names: LayeredMap.of(names),
        cutsAndDnames: LayeredMap.of(cuts),
        ordered: true,
      };
    }
    this.nodes = tree.nodes;
    this.names = tree.names;
    this.cutsAndDnames = tree.cutsAndDnames;
    this.ordered = tree.ordered;
  }

  /**
   * A copy with a new SOA and, for each owner name in `owners` (as the SOA and records name it), all its records
   * replaced by the ones given (none: the name goes). The records of a name come in the order the store lists them,
   * so the copy answers (and transfers) exactly as a zone built afresh from the store. `fold`: see LayeredMap.with.
   */
  patched(soa: SoaAnswer, owners: ReadonlyMap<string, readonly RR[]>, fold = true): ZoneData {
    const apex = soa.name.toLowerCase();
    const nodes = new Map<string, Node | undefined>();
    const counts = new Map<string, number>();
    const cuts = new Map<string, true | undefined>();
    let ordered = this.ordered;
    if (!owners.has(apex)) {
      const node: Node = new Map([['SOA', [soa]]]);
      for (const [type, rrs] of this.nodes.get(apex) ?? []) if (type !== 'SOA') node.set(type, rrs);
      nodes.set(apex, node);
    }
    const count = (owner: string, delta: 1 | -1) =>
      countNames(
        this.name,
        owner,
        delta,
        (n) => counts.get(n) ?? this.names.get(n) ?? 0,
        (n, c) => counts.set(n, c),
      );
    for (const [owner, records] of owners) {
      const list = owner === apex ? [soa, ...records] : records;
      const had = this.nodes.has(owner);
      cuts.set(owner, undefined);
      if (list.length === 0) {
        if (had) count(owner, -1);
        nodes.set(owner, undefined);
        continue;
      }
      const node: Node = new Map();
      for (const r of list) {
        addTo(node, r);
        if (isCutOrDname(this.name, owner, r.type)) cuts.set(owner, true);
      }
      nodes.set(owner, node);
      if (!had) {
        count(owner, 1);
        ordered = false; // a fresh build would place it among the others
      }
    }
    const names = new Map<string, number | undefined>();
    for (const [n, c] of counts) names.set(n, c > 0 ? c : undefined);
    const copy = new ZoneData(this.name, soa, [], {
      nodes: this.nodes.with(nodes, fold),
      names: this.names.with(names, fold),
      cutsAndDnames: this.cutsAndDnames.with(cuts, fold),
      ordered,
    });
    copy.lineage = { base: this, owners: [apex, ...owners.keys()] };
    return copy;
  }

  /** Nodes in the order of a zone built afresh from the store (apex first, then owner names in byte order). */
  ownerNodes(): Iterable<Node> {
    return this.nodesIn(runAtOnce(this.ownerOrder()));
  }

  /** The nodes of `order` (from `ownerOrder`; undefined: the table's own order). */
  *nodesIn(order: readonly string[] | undefined): Iterable<Node> {
    if (!order) {
      yield* this.nodes.values();
      return;
    }
    for (const owner of order) yield this.nodes.peek(owner) as Node;
  }

  /**
   * The owner names in the order of `ownerNodes`, as steps (sorting a large zone's names takes tens of milliseconds;
   * the answer thread sorts in steps): undefined when the table is in that order already. Kept for this copy.
   */
  *ownerOrder(): Generator<void, readonly string[] | undefined> {
    if (this.ordered) return undefined;
    if (!this.sorted) {
      const apex = this.soa.name.toLowerCase();
      const others = yield* sortSteps(
        [...this.nodes.keys()].filter((n) => n !== apex),
        cmp,
      );
      this.sorted = [apex, ...others];
    }
    return this.sorted;
  }

  /** TTL of negative answers: the SOA's TTL capped by its minimum field (RFC 2308 §5). */
  get negativeTtl(): number {
    return Math.min(this.soa.ttl ?? 0, this.soa.data.minimum ?? 0);
  }

  /** The SOA as NXDOMAIN and NODATA answers carry it: with the negative TTL (one object per zone copy). */
  get negativeSoa(): RR {
    return (this.negative ??= { ...this.soa, ttl: this.negativeTtl });
  }

  private negative?: RR;
}

export function isCutOrDname(zone: string, owner: string, type: string): boolean {
  return (type === 'NS' || type === 'DNAME') && owner !== zone;
}

/** The owner and every ancestor down from the apex exist: counts, per name, the owner names at or below it. */
export function countNames(
  zone: string,
  owner: string,
  delta: 1 | -1,
  get: (name: string) => number,
  set: (name: string, count: number) => void,
): void {
  for (let n = owner; ; n = parentOf(n)) {
    set(n, get(n) + delta);
    if (n === zone || n === '') break;
  }
}

export function parentOf(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

/**
 * Builds a zone from the store's records, fed in store order (by owner name, then type), packed (see NodePack): a
 * large zone starts without an answer object per record. The apex, with the SOA first, is decoded at once.
 */
export class ZoneBuilder {
  private readonly nodes = new Map<string, Node | number>();
  private readonly names = new Map<string, number>();
  private readonly cuts = new Map<string, true>();
  /** Names whose records came in more than one run (the apex: its SOA is not a store record): merged at the end. */
  private readonly merges: Array<[string, number]> = [];
  private readonly packer = new NodePacker((offset, first) => this.placed(offset, first));

  constructor(
    private readonly name: string,
    private readonly soa: SoaAnswer,
  ) {
    const apex = soa.name.toLowerCase();
    this.nodes.set(apex, new Map([['SOA', [soa]]]));
    this.count(apex);
  }

  add(record: RecordData): void {
    this.packer.add(record);
    const owner = ownerKey(record.name);
    if (isCutOrDname(this.name, owner, record.type)) this.cuts.set(owner, true);
  }

  finish(): ZoneData {
    const pack = this.packer.finish();
    for (const [owner, offset] of this.merges) {
      const node: Node = new Map();
      for (const part of [this.nodes.get(owner), offset])
        for (const rrs of unpacked(pack, part).values()) for (const rr of rrs) addTo(node, rr);
      this.nodes.set(owner, node);
    }
    return new ZoneData(this.name, this.soa, [], {
      nodes: NodeTable.of(this.nodes, pack),
      names: LayeredMap.of(this.names),
      cutsAndDnames: LayeredMap.of(this.cuts),
      ordered: true,
    });
  }

  private placed(offset: number, first: RecordData): void {
    const owner = ownerKey(first.name);
    if (this.nodes.has(owner)) this.merges.push([owner, offset]);
    else {
      this.nodes.set(owner, offset);
      this.count(owner);
    }
  }

  private count(owner: string): void {
    countNames(
      this.name,
      owner,
      1,
      (n) => this.names.get(n) ?? 0,
      (n, c) => this.names.set(n, c),
    );
  }
}

/** The index's key of a store owner name (lower case; the root is "."). */
function ownerKey(name: string): string {
  return name === '' ? '.' : name;
}

function unpacked(pack: NodePack, node: Node | number | undefined): Node {
  return typeof node === 'number' ? pack.peek(node) : (node ?? new Map<string, RR[]>());
}

/** All zones this server is authoritative for; finds the closest enclosing zone of a name. */
export class ZoneIndex {
  private readonly zones = new Map<string, ZoneData>();
  /**
   * Raised whenever a zone is added or removed (which zone encloses a name may change); replacing a zone's data
   * retires the old copy instead. Cached answers are valid while both their layout and their zone are current.
   */
  layout = 0;
  private readonly watchers = new Set<(zone: string) => void>();

  /** Each zone's recent changes, for IXFR (see ZoneJournal). */
  private readonly journals = new Map<string, ZoneJournal>();

  /** `journal: false` for an index that never answers IXFR (an answer worker): no change is diffed. */
  constructor(private readonly options: { journal?: boolean } = {}) {}

  /**
   * Serves `zone` from now on. Its journal follows the change from the copy served before (by the copy's lineage),
   * or takes `steps` recorded elsewhere (the engine's index, for the answer thread; null: none, the chain breaks).
   */
  set(zone: ZoneData, steps?: readonly JournalStep[] | null): void {
    const previous = this.zones.get(zone.name);
    this.zones.set(zone.name, zone);
    if (previous === zone) return;
    if (this.options.journal === false) zone.lineage = undefined;
    else {
      let journal = this.journals.get(zone.name);
      if (!journal) this.journals.set(zone.name, (journal = new ZoneJournal()));
      if (steps === undefined) journal.follow(previous, zone);
      else journal.append(previous, zone, steps ?? []);
    }
    if (previous) previous.retired = true;
    else this.layout++;
    this.told(zone.name);
  }

  delete(name: string): void {
    const previous = this.zones.get(name);
    if (!previous) return;
    this.zones.delete(name);
    this.journals.delete(name);
    previous.retired = true;
    this.layout++;
    this.told(name);
  }

  /** Calls `listener` with the zone's name after each `set` of a new copy and each `delete`; returns the undo. */
  watch(listener: (zone: string) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  private told(zone: string): void {
    for (const listener of this.watchers) listener(zone);
  }

  get(name: string): ZoneData | undefined {
    return this.zones.get(name);
  }

  /** The changes of zone `name` recorded since its chain last started (none for a zone not held). */
  journal(name: string): ZoneJournal | undefined {
    return this.journals.get(name);
  }

  get size(): number {
    return this.zones.size;
  }

  /** Names of the zones held. */
  names(): string[] {
    return [...this.zones.keys()];
  }

  /** The longest zone name that is the name itself or one of its ancestors. */
  find(lowerName: string): ZoneData | undefined {
    for (let n = lowerName; ; n = parentOf(n)) {
      const zone = this.zones.get(n);
      if (zone) return zone;
      if (n === '') return undefined;
    }
  }
}
