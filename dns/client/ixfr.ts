import { serialGreater } from '../model';
import type { ClientRecord } from './records';

/** One step of an incremental transfer: from the version `from` to `to`, these records went and these came. */
export interface IxfrStep {
  from: ClientRecord;
  to: ClientRecord;
  deleted: ClientRecord[];
  added: ClientRecord[];
}

/** What an IXFR brought (RFC 1995 §4). */
export type Incremental =
  /** The server has no newer version: its SOA alone. */
  | { kind: 'current'; soa: ClientRecord }
  /** The zone whole (AXFR form): the SOA and every other record. */
  | { kind: 'full'; soa: ClientRecord; records: ClientRecord[] }
  /** The changes, step by step, up to `soa`. */
  | { kind: 'incremental'; soa: ClientRecord; steps: IxfrStep[] };

const serialOf = (soa: ClientRecord): number => Number(soa.value.split(/\s+/)[2]);

/**
 * Reads an IXFR answer record by record (RFC 1995 §4): the new SOA first; then either the SOA alone (nothing
 * newer), or the zone in AXFR form (a record that is no SOA follows it), or steps, each the old SOA, the records
 * deleted, the new SOA, the records added, until the new SOA of the first record comes again after additions.
 */
export class IxfrReader {
  private soa?: ClientRecord;
  private second?: 'full' | 'incremental';
  private readonly records: ClientRecord[] = [];
  private readonly steps: IxfrStep[] = [];
  private step?: IxfrStep;
  private phase: 'deleting' | 'adding' = 'adding';
  private done = false;

  constructor(
    /** The serial the client holds (the one its request carried). */
    private readonly held: number,
    private readonly formatError: (why: string) => Error,
  ) {}

  /** Takes one record; true once the answer is complete. */
  add(record: ClientRecord): boolean {
    if (!this.soa) {
      if (record.type !== 'SOA')
        throw this.formatError(`an IXFR answer that does not start with the SOA (${record.type})`);
      this.soa = record;
      return false;
    }
    const isSoa = record.type === 'SOA' && record.name === this.soa.name;
    if (!this.second) {
      // an SOA right after the first: the old one of the first step (or the end of an empty zone in AXFR form)
      this.second = isSoa && serialOf(record) !== serialOf(this.soa) ? 'incremental' : 'full';
      if (this.second === 'full' && isSoa) return (this.done = true);
    }
    if (this.second === 'full') {
      if (isSoa) return (this.done = true);
      this.records.push(record);
      return false;
    }
    if (isSoa) {
      if (this.phase === 'deleting') {
        this.step!.to = record;
        this.phase = 'adding';
        return false;
      }
      if (serialOf(record) === serialOf(this.soa) && this.step) return (this.done = true);
      this.step = { from: record, to: record, deleted: [], added: [] };
      this.steps.push(this.step);
      this.phase = 'deleting';
      return false;
    }
    if (!this.step) throw this.formatError('an IXFR answer with a record outside any step');
    (this.phase === 'deleting' ? this.step.deleted : this.step.added).push(record);
    return false;
  }

  /**
   * After each message: a first message of the SOA alone ends the answer when that SOA is no newer than the version
   * held (RFC 1995 §2: the client is current); a newer one is the start of a transfer sent in more messages.
   */
  endOfMessage(): boolean {
    if (this.soa && !this.second && !serialGreater(serialOf(this.soa), this.held)) return (this.done = true);
    return this.done;
  }

  result(): Incremental {
    const soa = this.soa;
    if (!soa || !this.done) throw this.formatError('an incomplete IXFR answer');
    if (!this.second) return { kind: 'current', soa };
    if (this.second === 'full') return { kind: 'full', soa, records: this.records };
    return { kind: 'incremental', soa, steps: this.steps };
  }
}
