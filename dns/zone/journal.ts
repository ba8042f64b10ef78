import type { SoaAnswer } from 'dns-packet';
import { decodeAnswer, encodeAnswer } from '../wire';
import type { RR } from './rr';

/** How a zone copy came to be: patched from `base` at these owner names (lower case); what IXFR needs to diff. */
export interface Lineage {
  readonly base: JournalCopy;
  readonly owners: readonly string[];
}

/** What the journal reads of a zone copy. */
export interface JournalCopy {
  readonly soa: SoaAnswer;
  readonly nodes: { get(owner: string): ReadonlyMap<string, readonly RR[]> | undefined };
  lineage?: Lineage | undefined;
}

/** One version's change (RFC 1995 §4): the SOA before, the records it deleted, the SOA after, the records it added. */
export interface JournalStep {
  readonly from: SoaAnswer;
  readonly deleted: readonly RR[];
  readonly to: SoaAnswer;
  readonly added: readonly RR[];
}

export interface JournalBounds {
  /** Most versions kept per zone (the oldest dropped first). */
  maxSteps: number;
  /** Most records (deleted + added) kept per zone: a larger change is not kept, and breaks the chain. */
  maxRecords: number;
}

export const JOURNAL_BOUNDS: JournalBounds = { maxSteps: 500, maxRecords: 100_000 };

/** A record's identity for a diff: its wire form (name, type, class, TTL, data). */
function keyOf(rr: RR): string {
  return encodeAnswer(rr)?.toString('latin1') ?? `${rr.name}\0${rr.type}\0${JSON.stringify(rr)}`;
}

/** The records of `owners` in `before` that `after` no longer has, and those it has anew (SOA apart). */
export function diffAt(
  before: JournalCopy,
  after: JournalCopy,
  owners: Iterable<string>,
): { deleted: RR[]; added: RR[] } {
  const deleted: RR[] = [];
  const added: RR[] = [];
  for (const owner of owners) {
    const old = new Map<string, RR>();
    for (const [type, rrs] of before.nodes.get(owner) ?? []) {
      if (type !== 'SOA') for (const rr of rrs) old.set(keyOf(rr), rr);
    }
    for (const [type, rrs] of after.nodes.get(owner) ?? []) {
      if (type === 'SOA') continue;
      for (const rr of rrs) {
        const key = keyOf(rr);
        if (old.has(key)) old.delete(key);
        else added.push(rr);
      }
    }
    deleted.push(...old.values());
  }
  return { deleted, added };
}

/**
 * The recent history of one zone as IXFR answers it: the differences between each copy served and the next, for as
 * far back as the chain is unbroken (a copy not made by patching the one served before starts it anew). In memory
 * only: after a restart the first IXFR gets the zone whole, as RFC 1995 §4 allows.
 */
export class ZoneJournal {
  private readonly steps: JournalStep[] = [];
  private records = 0;

  constructor(private readonly bounds: JournalBounds = JOURNAL_BOUNDS) {}

  /** Versions kept now. */
  get length(): number {
    return this.steps.length;
  }

  /**
   * Records the change from `served` to `next`: diffed at the owner names every patch between them touched, when
   * `next` was patched (maybe in several steps) from `served`; otherwise the chain starts anew. Lets go of the
   * lineage so old copies are not held.
   */
  follow(served: JournalCopy | undefined, next: JournalCopy): void {
    const owners = new Set<string>();
    let copy: JournalCopy | undefined = next;
    while (copy && copy !== served) {
      const lineage: Lineage | undefined = copy.lineage;
      if (!lineage) break;
      for (const owner of lineage.owners) owners.add(owner);
      copy = lineage.base;
    }
    next.lineage = undefined;
    if (!served || copy !== served) return this.clear();
    this.push(served, next, diffAt(served, next, owners));
  }

  /**
   * Records the change from `served` to `next` as `steps` another journal recorded (the engine's, for the answer
   * thread: the steps since the copy shipped before); steps that do not lead from one to the other start the chain
   * anew.
   */
  append(served: JournalCopy | undefined, next: JournalCopy, steps: readonly JournalStep[]): void {
    next.lineage = undefined;
    const first = steps[0];
    const last = steps[steps.length - 1];
    if (!served || !first || !last) return this.clear();
    if (first.from.data.serial !== served.soa.data.serial || last.to.data.serial !== next.soa.data.serial)
      return this.clear();
    for (const step of steps) this.keep(step);
  }

  private push(served: JournalCopy, next: JournalCopy, diff: { deleted: RR[]; added: RR[] }): void {
    const { deleted, added } = diff;
    const from = served.soa.data.serial;
    const to = next.soa.data.serial;
    if (from === to) {
      // a change that kept the serial cannot be told incrementally: the chain starts again from here
      if (deleted.length > 0 || added.length > 0) this.clear();
      return;
    }
    this.keep({ from: served.soa, deleted, to: next.soa, added });
  }

  private keep(step: JournalStep): void {
    const size = step.deleted.length + step.added.length;
    if (size > this.bounds.maxRecords) return this.clear();
    this.steps.push(step);
    this.records += size;
    while (this.steps.length > this.bounds.maxSteps || this.records > this.bounds.maxRecords) {
      const dropped = this.steps.shift();
      if (dropped) this.records -= dropped.deleted.length + dropped.added.length;
    }
  }

  /** The steps from `serial` to `current`, oldest first; undefined when the journal does not reach back to it. */
  since(serial: number, current: number): readonly JournalStep[] | undefined {
    // the latest version with that serial (a serial may come again after wrapping around)
    let start = this.steps.length - 1;
    while (start >= 0 && this.steps[start]?.from.data.serial !== serial) start--;
    if (start < 0) return undefined;
    const steps = this.steps.slice(start);
    return steps[steps.length - 1]?.to.data.serial === current ? steps : undefined;
  }

  clear(): void {
    this.steps.length = 0;
    this.records = 0;
  }
}

/** Steps as bytes, to cross to the answer thread: per step the SOA before, the deleted, the SOA after, the added. */
export function encodeSteps(steps: readonly JournalStep[]): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32LE(n);
    parts.push(b);
  };
  const record = (rr: RR) => {
    const wire = encodeAnswer(rr);
    if (!wire) throw new Error(`journal: a record at ${rr.name} cannot be encoded`);
    u32(wire.length);
    parts.push(wire);
  };
  u32(steps.length);
  for (const step of steps) {
    record(step.from);
    u32(step.deleted.length);
    step.deleted.forEach(record);
    record(step.to);
    u32(step.added.length);
    step.added.forEach(record);
  }
  const all = Buffer.concat(parts);
  // on an ArrayBuffer of its own, so it can be transferred
  const out = Buffer.from(new ArrayBuffer(all.length));
  all.copy(out);
  return out;
}

/** The steps `encodeSteps` wrote. */
export function decodeSteps(bytes: Buffer): JournalStep[] {
  let at = 0;
  const u32 = () => {
    const n = bytes.readUInt32LE(at);
    at += 4;
    return n;
  };
  const record = (): RR => {
    const length = u32();
    const rr = decodeAnswer(bytes, at).value as RR;
    at += length;
    return rr;
  };
  const list = () => Array.from({ length: u32() }, record);
  return Array.from({ length: u32() }, () => {
    const from = record() as SoaAnswer;
    const deleted = list();
    const to = record() as SoaAnswer;
    return { from, deleted, to, added: list() };
  });
}
