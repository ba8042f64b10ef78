import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SoaAnswer } from 'dns-packet';
import { nextKeyEvent } from '../dnssec';
import {
  encodeZoneImage,
  readZoneImage,
  type SignedHead,
  type SigningPolicy,
  type ZoneData,
  type ZoneImage,
  type ZoneKey,
} from '../zone';

/**
 * Signed zones kept on disk, one file per zone (`DATA_DIR/signed-zones/`): a restart, and every answer worker,
 * serves a signed zone from its file at once instead of signing it whole again (seconds for a big zone, per
 * process). A file is a whole zone image (zone-image.ts) with a header saying what it was signed from; it is used
 * only when that is still what the store has — the zone's serial and incarnation, the keys with their timings, the
 * signing policy — when no key event fell between its signing and now, and when its signatures are not near expiry.
 * Anything else (or a damaged file: a checksum covers it) is ignored and the zone is signed as before. The files
 * hold no secret: only what the server publishes.
 *
 * Only the process that signs for the store writes them (the engine, `write: true`); answer workers read. While the
 * engine rebuilds a signed zone it leaves a marker (`<file>.busy`, its pid), so that a worker waits for the file the
 * engine is about to write instead of signing its own copy.
 */

const MAGIC = Buffer.from('onegraph signed zone 1\n');
const HASH_BYTES = 32;
/** A file whose signatures expire sooner than this is not used (the zone is signed afresh instead). */
const MIN_LEFT_S = 3600;
/** How long a worker waits at most for the engine's file while the engine rebuilds the zone. */
const WAIT_MS = 120_000;
const POLL_MS = 50;

/** What a file was signed from, beyond the image. */
interface Header {
  zone: string;
  serial: number;
  createdAt: string;
  /** keyFingerprint of the keys and policy it was signed with. */
  signedWith: string;
  soa: SoaAnswer;
  ordered: boolean;
  signed: SignedHead;
  unavailable: boolean;
  nodes: number;
  chain: number;
}

/** The store's mark of a zone: its serial and when it was created (another incarnation differs). */
export interface ZoneIncarnation {
  serial: number;
  createdAt: string;
}

export interface SignedZoneFilesLogger {
  warn(obj: object, msg: string): void;
}

/** What signing a zone depends on besides its records: the keys with their timings, and the policy. */
export function keyFingerprint(keys: readonly ZoneKey[], policy: SigningPolicy): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([policy.signatureValidity, policy.inceptionOffset, policy.dnskeyTtl, policy.nsec3 ?? null]),
  );
  for (const k of [...keys].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    hash.update(
      JSON.stringify([
        k.id,
        k.flags,
        k.tag,
        k.algorithm.number,
        k.publishAt,
        k.activateAt,
        k.inactiveAt,
        k.deleteAt,
        k.cdsAt ?? null,
        k.cdsUntil ?? null,
      ]),
    );
  return hash.digest('hex');
}

/** A file name for a zone name: as is when it is plain, else hex (no name can escape the directory). */
function fileName(zone: string): string {
  if (zone === '') return '@.signed';
  return /^[a-z0-9_][a-z0-9._-]*$/.test(zone) ? `${zone}.signed` : `%${Buffer.from(zone).toString('hex')}.signed`;
}

export class SignedZoneFiles {
  private made = false;
  /** Per zone, the write under way (writes of one zone run one after another). */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(
    readonly dir: string,
    private readonly options: { write: boolean; log?: SignedZoneFilesLogger },
  ) {}

  fileOf(zone: string): string {
    return join(this.dir, fileName(zone));
  }

  /**
   * The signed copy of `zone` its file holds, when it was signed from what the store has now (`mark`, `keys`,
   * `policy`) and is good at `now`; undefined otherwise. Its keys are `keys` (the next change signs with them).
   */
  async read(
    zone: string,
    mark: ZoneIncarnation,
    keys: readonly ZoneKey[],
    policy: SigningPolicy,
    now: number,
  ): Promise<ZoneData | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.fileOf(zone));
    } catch {
      return undefined; // none (or unreadable): signed as before
    }
    const parsed = this.parse(zone, bytes);
    if (!parsed) return undefined;
    const { header, nodes, chain } = parsed;
    if (header.zone !== zone || header.serial !== mark.serial || header.createdAt !== mark.createdAt) return undefined;
    if (header.signedWith !== keyFingerprint(keys, policy)) return undefined;
    if (header.signed.expiresAt - now < MIN_LEFT_S) return undefined;
    const event = nextKeyEvent(keys, header.signed.signedAt);
    if (event !== null && event <= now) return undefined; // a key started, stopped or left since: sign afresh
    const image: ZoneImage = {
      zone,
      soa: header.soa,
      whole: true,
      ordered: header.ordered,
      nodes,
      signed: header.signed,
      chain,
      ...(header.unavailable ? { unavailable: true } : {}),
    };
    const data = await readZoneImage(image, undefined);
    if (!data.signing) return undefined;
    data.signing = { ...data.signing, keys };
    return data;
  }

  /** The header and parts of a file, or undefined (logged) when it is not one of ours or is damaged. */
  private parse(zone: string, bytes: Buffer): { header: Header; nodes: Buffer; chain: Buffer } | undefined {
    const damaged = (why: string): undefined => {
      this.options.log?.warn({ zone, file: this.fileOf(zone) }, `signed zone file ignored: ${why}`);
      return undefined;
    };
    if (bytes.length < MAGIC.length + 4 + HASH_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC))
      return damaged('not a signed zone file of this version');
    const body = bytes.subarray(0, bytes.length - HASH_BYTES);
    if (!createHash('sha256').update(body).digest().equals(bytes.subarray(body.length)))
      return damaged('its checksum does not match (a write cut short, or altered)');
    try {
      const headerLength = body.readUInt32LE(MAGIC.length);
      const start = MAGIC.length + 4;
      const header = JSON.parse(body.toString('utf8', start, start + headerLength)) as Header;
      const nodesAt = start + headerLength;
      if (nodesAt + header.nodes + header.chain !== body.length) return damaged('its parts do not add up');
      // copies of their own (the file's buffer is let go), the nodes on a SharedArrayBuffer: the answer thread reads
      // the same bytes instead of a copy (zone-image.ts)
      const nodes = Buffer.from(new SharedArrayBuffer(header.nodes));
      body.copy(nodes, 0, nodesAt, nodesAt + header.nodes);
      const chain = Buffer.from(body.subarray(nodesAt + header.nodes));
      return { header, nodes, chain };
    } catch (err) {
      return damaged(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * Writes the signed copy `data` of `zone` (created at `createdAt`) to its file: whole, to a temporary file synced
   * and renamed over the old one, so a crash leaves the old file or the new one. Writes of one zone run in turn.
   */
  write(zone: string, data: ZoneData, createdAt: string): Promise<void> {
    if (!this.options.write || !data.signing) return Promise.resolve();
    return this.queue(zone, async () => this.writeNow(zone, data, await encodeZoneImage(data), createdAt));
  }

  /**
   * A freshly signed copy as the copy its file holds: `data` encoded once as a whole image, written to the file (in
   * the background) and read back — its nodes packed in one shared buffer, decoded when an answer needs them,
   * instead of a signed copy's objects (several times the memory).
   */
  async keep(zone: string, data: ZoneData, createdAt: string): Promise<ZoneData> {
    const state = data.signing;
    if (!state) return data;
    const image = await encodeZoneImage(data);
    if (this.options.write) void this.queue(zone, () => this.writeNow(zone, data, image, createdAt));
    const copy = await readZoneImage(image, undefined);
    if (!copy.signing) return data;
    copy.signing = { ...copy.signing, keys: state.keys };
    return copy;
  }

  private queue(zone: string, work: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(zone) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((err: unknown) => this.options.log?.warn({ err, zone }, 'signed zone file not written'));
    this.writes.set(zone, next);
    void next.finally(() => {
      if (this.writes.get(zone) === next) this.writes.delete(zone);
    });
    return next;
  }

  /** Resolves once every write started so far has ended. */
  async flushed(): Promise<void> {
    await Promise.all(this.writes.values());
  }

  private async writeNow(zone: string, data: ZoneData, image: ZoneImage, createdAt: string): Promise<void> {
    const state = data.signing;
    if (!state) return;
    const chain = image.chain ?? Buffer.alloc(0);
    const header: Header = {
      zone,
      serial: data.soa.data.serial ?? 0,
      createdAt,
      signedWith: keyFingerprint(state.keys, state.policy),
      soa: image.soa,
      ordered: image.ordered,
      signed: { policy: state.policy, expiresAt: state.expiresAt, signedAt: state.signedAt },
      unavailable: image.unavailable === true,
      nodes: image.nodes.length,
      chain: chain.length,
    };
    const headerBytes = Buffer.from(JSON.stringify(header));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(headerBytes.length);
    const parts = [MAGIC, length, headerBytes, image.nodes, chain];
    const hash = createHash('sha256');
    for (const part of parts) hash.update(part);
    parts.push(hash.digest());
    if (!this.made) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    const file = this.fileOf(zone);
    const temporary = `${file}.${process.pid}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writev(parts);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  }

  /** Removes the file of `zone` (deleted, or no longer signed). */
  async remove(zone: string): Promise<void> {
    if (!this.options.write) return;
    await this.writes.get(zone);
    await rm(this.fileOf(zone), { force: true });
  }

  /** Marks `zone` as being rebuilt by this process (see the class comment); synchronous, so a worker sees it. */
  markBusy(zone: string): void {
    if (!this.options.write) return;
    try {
      if (!this.made) {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        this.made = true;
      }
      writeFileSync(`${this.fileOf(zone)}.busy`, String(process.pid), { mode: 0o600 });
    } catch {
      // no marker: workers sign their own copy, as without files
    }
  }

  clearBusy(zone: string): void {
    if (!this.options.write) return;
    rmSync(`${this.fileOf(zone)}.busy`, { force: true });
  }

  /**
   * In an answer worker: while the engine (`parent`, its pid) marks `zone` as being rebuilt, waits for it to finish
   * (at most WAIT_MS), so that the worker reads the file it writes instead of signing a copy of its own.
   */
  async waitForEngine(zone: string, parent: number): Promise<void> {
    const marker = `${this.fileOf(zone)}.busy`;
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline && existsSync(marker)) {
      let pid: number;
      try {
        pid = Number(readFileSync(marker, 'utf8'));
      } catch {
        return;
      }
      if (pid !== parent) return;
      await sleep(POLL_MS);
    }
  }
}
