import type { SoaAnswer } from 'dns-packet';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { decodeAnswer, encodeAnswer } from '../wire';
import { LayeredMap } from './layered-map';
import { NodePack, NodeTable } from './node-pack';
import { addTo, type Node, type RR } from './rr';
import type { SignedState, SigningPolicy } from './signed-state';
import { countNames, ZoneData } from './zone-index';

/*
 * Zone images: a zone copy as bytes, to hand to an answer thread. A structured clone of the copy's objects would be
 * rebuilt by the receiving thread in one go, blocking the loop that answers; bytes cross at once, and the receiving
 * side reads them in steps (yielding between steps), keeps the nodes packed and decodes one when a lookup first
 * needs it, then swaps the finished copy in. A change ships as a patch: only the nodes it changed, which the
 * receiving side applies with `patched` to the copy it holds, as the sending side did.
 *
 * Layout of the nodes buffer, per owner name: u16 length + index key (UTF-8), u8 flags, then the node at the
 * offset the receiving side keeps: u8 kind, u32 length, payload. Kinds: a NodePack node (records in presentation
 * form, as the store gave them), a wire node (u32 count, then per record u16 length + dns-packet's encoding of it:
 * any record the server can send, signatures included), or gone (a patch removes the name).
 */

const KIND_PACKED = 0;
const KIND_WIRE = 1;
const KIND_GONE = 2;
const FLAG_CUT = 1;
/** A step of encoding or reading runs at most this long before it lets the loop run (ms). */
const STEP_MS = 2;
const CHECK_EVERY = 256;

/** What a receiving side needs of a signed copy to answer from it (keys sign nothing there). */
export interface SignedHead {
  policy: SigningPolicy;
  expiresAt: number;
  signedAt: number;
}

export interface ZoneImage {
  zone: string;
  soa: SoaAnswer;
  /** Whole: every node; otherwise a patch of the copy that was shipped before. */
  whole: boolean;
  /** A whole image's nodes are in owner order (apex first, then byte order): a transfer need not sort them. */
  ordered: boolean;
  nodes: Buffer;
  /** Set on a signed copy. */
  signed: SignedHead | null;
  /** The NSEC chain (names and their canonical keys), when it changed or the image is whole; null: as before. */
  chain: Buffer | null;
  /**
   * The way from the copy shipped before, for the receiving side's IXFR journal (`encodeSteps`): set by the shipper
   * when its journal has it; absent, the receiving journal starts anew.
   */
  journal?: Buffer | null;
  /** The copy answers SERVFAIL (see ZoneData.unavailable). */
  unavailable?: boolean;
}

/** Lets the loop run once the current step has run STEP_MS. */
class Steps {
  private started = performance.now();
  private count = 0;

  async tick(): Promise<void> {
    if (++this.count % CHECK_EVERY !== 0 || performance.now() - this.started < STEP_MS) return;
    await nextTurn();
    this.started = performance.now();
  }
}

class Writer {
  private buffer = Buffer.allocUnsafe(1 << 16);
  length = 0;

  reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  u8(v: number): void {
    this.reserve(1);
    this.length = this.buffer.writeUInt8(v, this.length);
  }

  u16(v: number): void {
    this.reserve(2);
    this.length = this.buffer.writeUInt16LE(v, this.length);
  }

  u32(v: number): void {
    this.reserve(4);
    this.length = this.buffer.writeUInt32LE(v, this.length);
  }

  /** Writes a u32 placeholder; returns where, for `patch`. */
  hole(): number {
    this.u32(0);
    return this.length - 4;
  }

  patch(at: number, v: number): void {
    this.buffer.writeUInt32LE(v, at);
  }

  text(s: string): void {
    const bytes = Buffer.byteLength(s);
    this.u16(bytes);
    this.reserve(bytes);
    this.length += this.buffer.write(s, this.length);
  }

  bytes(b: Buffer): void {
    this.reserve(b.length);
    this.length += b.copy(this.buffer, this.length);
  }

  /**
   * The bytes written, in a buffer of their own: on its own ArrayBuffer, so it can be transferred, or (`shared`) on a
   * SharedArrayBuffer, which threads read without a copy.
   */
  finish(shared = false): Buffer {
    const out = Buffer.from(shared ? new SharedArrayBuffer(this.length) : new ArrayBuffer(this.length));
    this.buffer.copy(out, 0, 0, this.length);
    return out;
  }
}

function writeNode(w: Writer, zone: ZoneData, owner: string, node: Node | number | undefined): void {
  w.text(owner);
  w.u8(zone.cutsAndDnames.has(owner) ? FLAG_CUT : 0);
  if (node === undefined) {
    w.u8(KIND_GONE);
    w.u32(0);
  } else if (typeof node === 'number' && zone.nodes.pack instanceof ImageNodes) {
    w.bytes(zone.nodes.pack.record(node)); // a copy read from an image (a signed zone kept on disk): as it was
  } else if (typeof node === 'number') {
    const raw = (zone.nodes.pack as NodePack).raw(node);
    w.u8(KIND_PACKED);
    w.u32(raw.length);
    w.bytes(raw);
  } else {
    w.u8(KIND_WIRE);
    const length = w.hole();
    const start = w.length;
    let count = 0;
    for (const rrs of node.values()) count += rrs.length;
    w.u32(count);
    for (const rrs of node.values())
      for (const rr of rrs) {
        const wire = encodeAnswer(rr);
        if (!wire) throw new Error(`zone image: ${rr.name} ${rr.type} has data dns-packet cannot encode`);
        w.u16(wire.length);
        w.bytes(wire);
      }
    w.patch(length, w.length - start);
  }
}

function writeChain(state: SignedState): Buffer {
  const w = new Writer();
  w.u32(state.chain.length);
  for (let i = 0; i < state.chain.length; i++) {
    w.text(state.chain[i] ?? '');
    w.text(state.chainKeys[i] ?? '');
  }
  return w.finish();
}

function sameChain(a: SignedState | undefined, b: SignedState): boolean {
  if (!a) return false;
  if (a.chain === b.chain) return true;
  if (a.chain.length !== b.chain.length) return false;
  for (let i = 0; i < a.chain.length; i++) if (a.chain[i] !== b.chain[i]) return false;
  return true;
}

/**
 * `next` as an image for a side that holds `shipped` (the copy shipped before; undefined: none): a patch of the
 * nodes that changed when that is known cheaply, else the whole copy. Runs in steps (the caller's loop keeps going).
 */
export async function encodeZoneImage(next: ZoneData, shipped?: ZoneData): Promise<ZoneImage> {
  const changes = shipped ? next.nodes.changesSince(shipped.nodes) : null;
  const whole = changes === null;
  // a copy read whole from an image, unchanged since: its nodes are that image's (shared, never copied again)
  if (whole && next.imageNodes) return imageOf(next, next.imageNodes, true);
  const steps = new Steps();
  const w = new Writer();
  for (const [owner, node] of changes ?? next.nodes.held()) {
    writeNode(w, next, owner, node);
    await steps.tick();
  }
  // a whole image's nodes are shared: the thread it goes to and the copy read from it hold one buffer
  return imageOf(next, w.finish(whole), whole, shipped);
}

function imageOf(next: ZoneData, nodes: Buffer, whole: boolean, shipped?: ZoneData): ZoneImage {
  const state = next.signing;
  return {
    zone: next.name,
    soa: next.soa,
    whole,
    ordered: whole && next.inOwnerOrder,
    nodes,
    signed: state ? { policy: state.policy, expiresAt: state.expiresAt, signedAt: state.signedAt } : null,
    chain: state && (whole || !sameChain(shipped?.signing, state)) ? writeChain(state) : null,
    ...(next.unavailable ? { unavailable: true } : {}),
  };
}

/** The nodes of an image, decoded on demand like a NodePack's (offsets point at a node's kind byte). */
class ImageNodes extends NodePack {
  protected override decode(offset: number): Node {
    const b = this.buffer;
    const kind = b.readUInt8(offset);
    if (kind === KIND_PACKED) return super.decode(offset + 5);
    if (kind !== KIND_WIRE) throw new Error(`zone image: no node at ${offset}`);
    let at = offset + 5;
    const count = b.readUInt32LE(at);
    at += 4;
    const node: Node = new Map();
    for (let i = 0; i < count; i++) {
      const length = b.readUInt16LE(at);
      addTo(node, decodeAnswer(b, at + 2).value as RR);
      at += 2 + length;
    }
    return node;
  }

  override raw(): Buffer {
    throw new Error('the nodes of a zone image are copied on as records (see record)');
  }

  /** The node at `offset` as the image holds it (kind, length, payload): what another image copies. */
  record(offset: number): Buffer {
    return this.buffer.subarray(offset, offset + 5 + this.buffer.readUInt32LE(offset + 1));
  }
}

/** Reads each owner name of an image's nodes: its index key, flags and node offset (kind byte). */
async function eachNode(
  buffer: Buffer,
  visit: (owner: string, flags: number, offset: number, kind: number) => void,
): Promise<void> {
  const steps = new Steps();
  for (let at = 0; at < buffer.length;) {
    const keyLength = buffer.readUInt16LE(at);
    const owner = buffer.toString('utf8', at + 2, at + 2 + keyLength);
    at += 2 + keyLength;
    const flags = buffer.readUInt8(at);
    const offset = at + 1;
    const kind = buffer.readUInt8(offset);
    visit(owner, flags, offset, kind);
    at = offset + 5 + buffer.readUInt32LE(offset + 1);
    await steps.tick();
  }
}

async function readChain(buffer: Buffer): Promise<{ chain: string[]; chainKeys: string[] }> {
  const count = buffer.readUInt32LE(0);
  const chain: string[] = new Array<string>(count);
  const chainKeys: string[] = new Array<string>(count);
  const steps = new Steps();
  let at = 4;
  const text = (): string => {
    const length = buffer.readUInt16LE(at);
    const s = buffer.toString('utf8', at + 2, at + 2 + length);
    at += 2 + length;
    return s;
  };
  for (let i = 0; i < count; i++) {
    chain[i] = text();
    chainKeys[i] = text();
    await steps.tick();
  }
  return { chain, chainKeys };
}

/**
 * The copy an image describes: built from it when whole, else `current` (the copy the previous image gave) with the
 * patch applied. Runs in steps; the caller swaps the result in once it is complete.
 */
export async function readZoneImage(image: ZoneImage, current: ZoneData | undefined): Promise<ZoneData> {
  let zone: ZoneData;
  if (image.whole) {
    const nodes = new Map<string, Node | number>();
    const names = new Map<string, number>();
    const cuts = new Map<string, true>();
    await eachNode(image.nodes, (owner, flags, offset) => {
      nodes.set(owner, offset);
      countNames(
        image.zone,
        owner,
        1,
        (n) => names.get(n) ?? 0,
        (n, c) => names.set(n, c),
      );
      if (flags & FLAG_CUT) cuts.set(owner, true);
    });
    zone = new ZoneData(image.zone, image.soa, [], {
      nodes: NodeTable.of(nodes, new ImageNodes(image.nodes)),
      names: LayeredMap.of(names),
      cutsAndDnames: LayeredMap.of(cuts),
      ordered: image.ordered,
    });
    zone.imageNodes = image.nodes;
  } else {
    if (!current) throw new Error(`zone image: a patch of ${image.zone || '.'}, which is not held`);
    const pack = new ImageNodes(image.nodes);
    const apex = image.soa.name.toLowerCase();
    const owners = new Map<string, RR[]>();
    await eachNode(image.nodes, (owner, _flags, offset, kind) => {
      if (kind === KIND_GONE) return void owners.set(owner, []);
      const records = [...pack.peek(offset).values()].flat();
      owners.set(owner, owner === apex ? records.filter((r) => r.type !== 'SOA') : records);
    });
    zone = current.patched(image.soa, owners, false); // the sender folds, then ships the zone whole
  }
  zone.unavailable = image.unavailable === true;
  if (image.signed) {
    const previous = current?.signing;
    const chain = image.chain
      ? await readChain(image.chain)
      : { chain: previous?.chain ?? [], chainKeys: previous?.chainKeys ?? [] };
    zone.signing = { keys: [], ...image.signed, ...chain };
  }
  return zone;
}
