import type { RecordData } from '../model';
import { toPacketAnswer } from '../records';
import { LayeredMap } from './layered-map';
import { addTo, type Node, type RR } from './rr';

/**
 * A zone's records as read from the store, kept in one buffer (presentation form, a few bytes of framing per record)
 * instead of as answer objects: a 100 000-record zone then takes a few MB instead of tens, and starts without
 * parsing every value. An owner's records become answer objects (`Node`) when a lookup first needs them; the
 * decoded nodes are kept in a bounded cache, so a zone's hot names cost one map access, as before, and memory stays
 * bounded by the names queried, not by the zone's size.
 *
 * Layout of one node at its offset: u32 record count, u16 length + the owner as its first record gives it; then per
 * record u8 length + type, u32 TTL, u16 length + owner as given (0: the node's), u32 length + value — all UTF-8.
 */
export class NodePack implements PackedNodes {
  private young = new Map<number, Node>();
  private old = new Map<number, Node>();

  /** `decodedLimit`: decoded nodes kept (in two generations of up to that many: recently used ones survive). */
  constructor(
    protected readonly buffer: Buffer,
    private readonly decodedLimit = DECODED_NODES,
  ) {}

  /** The node at `offset`, decoded once and then kept while it is in use. */
  node(offset: number): Node {
    let node = this.young.get(offset);
    if (node) return node;
    node = this.old.get(offset) ?? this.decode(offset);
    if (this.young.size >= this.decodedLimit) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(offset, node);
    return node;
  }

  /** The node at `offset` without keeping it (zone transfers walk every node once; they must not evict hot ones). */
  peek(offset: number): Node {
    return this.young.get(offset) ?? this.old.get(offset) ?? this.decode(offset);
  }

  /** Bytes of packed records (for logs and measurements). */
  get bytes(): number {
    return this.buffer.length;
  }

  /** The bytes of the node at `offset`, as they are in the pack (for copying it elsewhere). */
  raw(offset: number): Buffer {
    const b = this.buffer;
    const count = b.readUInt32LE(offset);
    let at = offset + 6 + b.readUInt16LE(offset + 4);
    for (let i = 0; i < count; i++) {
      at += 1 + b.readUInt8(at) + 4; // type, TTL
      at += 2 + b.readUInt16LE(at); // owner as given
      at += 4 + b.readUInt32LE(at); // value
    }
    return b.subarray(offset, at);
  }

  protected decode(offset: number): Node {
    const b = this.buffer;
    let at = offset;
    const count = b.readUInt32LE(at);
    const ownerLength = b.readUInt16LE(at + 4);
    const owner = b.toString('utf8', at + 6, (at += 6 + ownerLength));
    const node: Node = new Map();
    for (let i = 0; i < count; i++) {
      const type = b.toString('latin1', at + 1, (at += 1 + b.readUInt8(at)));
      const ttl = b.readUInt32LE(at);
      const nameLength = b.readUInt16LE(at + 4);
      const name = nameLength === 0 ? owner : b.toString('utf8', at + 6, at + 6 + nameLength);
      at += 6 + nameLength;
      const valueLength = b.readUInt32LE(at);
      const value = b.toString('utf8', at + 4, (at += 4 + valueLength));
      const rr = toPacketAnswer({ name, type: type as RecordData['type'], ttl, value }) as RR;
      rr.name = name === '' ? '.' : name; // one string per owner, as a zone built from answer objects
      addTo(node, rr);
    }
    return node;
  }
}

/** Nodes kept in a buffer and decoded on demand, by their offset in it (NodePack, or a zone image's nodes). */
export interface PackedNodes {
  /** The node at `offset`, decoded once and then kept while it is in use. */
  node(offset: number): Node;
  /** The node at `offset` without keeping it. */
  peek(offset: number): Node;
  /** The bytes of the node at `offset` in NodePack's layout. */
  raw(offset: number): Buffer;
}

/** Decoded nodes a zone keeps per generation: the names a busy server answers, a few tens of MB at most. */
export const DECODED_NODES = 32_768;

/**
 * A zone's owner names and their records: decoded nodes (the apex, names a change patched in) or offsets into the
 * zone's NodePack. Copy-on-write like the LayeredMap underneath; copies share the pack and its decoded nodes.
 */
export class NodeTable {
  constructor(
    private readonly map: LayeredMap<Node | number>,
    readonly pack?: PackedNodes,
  ) {}

  static of(nodes: Map<string, Node | number>, pack?: PackedNodes): NodeTable {
    return new NodeTable(LayeredMap.of(nodes), pack);
  }

  get size(): number {
    return this.map.size;
  }

  get(owner: string): Node | undefined {
    const v = this.map.get(owner);
    return typeof v === 'number' ? (this.pack as PackedNodes).node(v) : v;
  }

  has(owner: string): boolean {
    return this.map.has(owner);
  }

  /** A table with `changes` applied (undefined removes an owner name). */
  with(changes: ReadonlyMap<string, Node | undefined>, fold = true): NodeTable {
    return changes.size === 0 ? this : new NodeTable(this.map.with(changes, fold), this.pack);
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  /** The records of `owner` without keeping them decoded (for walks over the whole zone). */
  peek(owner: string): Node | undefined {
    const v = this.map.get(owner);
    return v === undefined ? undefined : this.unpacked(v);
  }

  *values(): IterableIterator<Node> {
    for (const v of this.map.values()) yield this.unpacked(v);
  }

  *entries(): IterableIterator<[string, Node]> {
    for (const [owner, v] of this.map.entries()) yield [owner, this.unpacked(v)];
  }

  private unpacked(v: Node | number): Node {
    return typeof v === 'number' ? (this.pack as PackedNodes).peek(v) : v;
  }

  /** Owner names with their records as held: a decoded node, or the node's offset in `pack`. */
  held(): IterableIterator<[string, Node | number]> {
    return this.map.entries();
  }

  /** What changed since `previous` (see LayeredMap.changesSince); null: not known cheaply, take the whole table. */
  changesSince(previous: NodeTable): Map<string, Node | number | undefined> | null {
    return previous.pack === this.pack ? this.map.changesSince(previous.map) : null;
  }
}

/**
 * Packs records fed in store order (by owner name, then type) node by node, keeping names and values in the case
 * they were given (answers use it, as BIND's do). Each RRset gets one TTL, the lowest of its records: RFC 2181 §5.2
 * gives an RRset one TTL, the store can hold different ones (one record's TTL changed alone), and BIND, once it has
 * transferred such a zone, answers every record of the set with the lowest, so we serve (and transfer) exactly that.
 */
export class NodePacker {
  private buffer = Buffer.allocUnsafe(1 << 16);
  private length = 0;
  private node: RecordData[] = [];

  /** Adds a record; `done(offset, records)` is called for each finished node with the first record of it. */
  constructor(private readonly done: (offset: number, first: RecordData) => void) {}

  add(record: RecordData): void {
    const first = this.node[0];
    if (first !== undefined && first.name !== record.name) this.flush();
    this.node.push(record);
  }

  /** The pack, once every record was added (`decodedLimit`: see NodePack). */
  finish(decodedLimit?: number): NodePack {
    this.flush();
    return new NodePack(Buffer.from(this.buffer.subarray(0, this.length)), decodedLimit);
  }

  private flush(): void {
    const records = this.node;
    const first = records[0];
    if (first === undefined) return;
    this.node = [];
    const offset = this.length;
    const owner = first.givenName ?? first.name;
    this.reserve(4);
    this.buffer.writeUInt32LE(records.length, this.length);
    this.length += 4;
    this.text(owner, 2);
    // one TTL per RRset (the records of one type): the lowest
    const ttls = new Map<string, number>();
    for (const r of records) ttls.set(r.type, Math.min(ttls.get(r.type) ?? Infinity, r.ttl));
    for (const r of records) {
      const name = r.givenName ?? r.name;
      this.text(r.type, 1);
      this.reserve(4);
      this.buffer.writeUInt32LE(ttls.get(r.type) ?? r.ttl, this.length);
      this.length += 4;
      this.text(name === owner ? '' : name, 2);
      this.text(r.givenValue ?? r.value, 4);
    }
    this.done(offset, first);
  }

  /** `text` preceded by its UTF-8 length in `size` bytes. */
  private text(text: string, size: 1 | 2 | 4): void {
    const bytes = Buffer.byteLength(text);
    this.reserve(size + bytes);
    this.buffer.writeUIntLE(bytes, this.length, size);
    this.buffer.write(text, this.length + size);
    this.length += size + bytes;
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/** Answers for records fed in store order, as a zone built from them holds them (see NodePacker). */
export function toAnswers(records: Iterable<RecordData>): RR[] {
  const offsets: number[] = [];
  const packer = new NodePacker((offset) => offsets.push(offset));
  for (const r of records) packer.add(r);
  const pack = packer.finish();
  return offsets.flatMap((offset) => [...pack.peek(offset).values()].flat());
}
