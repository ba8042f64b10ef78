/**
 * The figures of the isolation bench's UDP load (test/bench/udp-load.ts), in bounded memory whatever the window's
 * length: answer latencies in a log-linear histogram, the longest silence between answers, and the lines they print.
 */

/** Sub-buckets per power of two: values are kept to within 1/64 (1.6 %). */
const SUB = 64;
const SUB_BITS = 6;
/** Values from 2^31 µs (about 36 minutes, far beyond any timeout) share the last bucket. */
const LARGEST = 2 ** 31 - 1;

/** Bucket of a value in µs (exact below 2 × SUB µs, log-linear above). */
function bucketOf(us: number): number {
  const v = Math.min(LARGEST, Math.max(0, Math.floor(us)));
  if (v < 2 * SUB) return v;
  const shift = 31 - Math.clz32(v) - SUB_BITS;
  return (shift + 1) * SUB + (v >>> shift) - SUB;
}

const BUCKETS = bucketOf(LARGEST) + 1;

/** The lowest value (µs) of a bucket. */
function lowestOf(bucket: number): number {
  if (bucket < 2 * SUB) return bucket;
  const shift = Math.floor(bucket / SUB) - 1;
  return (bucket - shift * SUB) * 2 ** shift;
}

/** Latencies in ms, kept as counts per bucket; the largest exactly. */
export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  count = 0;
  max = 0;

  record(ms: number): void {
    const index = bucketOf(ms * 1000);
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  /** The `q`-quantile in ms (nearest rank, the middle of its bucket; never above the largest); NaN when empty. */
  quantile(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.min(this.count, Math.max(1, Math.ceil(q * this.count)));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) {
        if (i === BUCKETS - 1) return this.max; // the open-ended last bucket
        const middle = i < 2 * SUB ? i : (lowestOf(i) + lowestOf(i + 1)) / 2;
        return Math.min(this.max, middle / 1000);
      }
    }
    return this.max;
  }
}

/**
 * The longest time without an answer within a window: between consecutive answers, and from the window's opening to
 * its first answer and from its last answer to its closing (a window without any answer is silent throughout).
 */
export class Silence {
  private last: number;
  longest = 0;

  constructor(openedAt: number) {
    this.last = openedAt;
  }

  answer(at: number): void {
    this.longest = Math.max(this.longest, at - this.last);
    this.last = Math.max(this.last, at);
  }

  close(at: number): number {
    this.answer(at);
    return this.longest;
  }
}

/** What the load saw in one window (questions belong to the window they were sent in). */
export interface WindowStats {
  label: string;
  /** Window length, ms. */
  ms: number;
  sent: number;
  /** Answered within the timeout (any RCODE). */
  answered: number;
  /** Not answered within the timeout (answers that came later are counted in `late` too). */
  lost: number;
  late: number;
  /** Answers with another RCODE than NOERROR. */
  errors: number;
  /** Answers whose question was not the one sent under their ID (dropped; the question stays unanswered). */
  mismatched: number;
  p50: number;
  p99: number;
  max: number;
  /** Longest time without any answer, ms. */
  silence: number;
  /** Questions the generator could not send on time (it fell more than 20 ms behind its schedule). */
  skipped: number;
  /** Datagrams the kernel dropped at the server's socket (receive buffer full) meanwhile, when it says. */
  serverDrops?: number;
  /** … and at the load's own socket (answers it could not take in: they would count as lost). */
  loadDrops?: number;
}

const ms = (n: number): string => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms` : '—');

/** One window on one line: sent, answered, lost, latency, silence. */
export function windowLine(s: WindowStats): string {
  const extra = [
    s.late ? `${s.late} answered late` : '',
    s.errors ? `${s.errors} error RCODEs` : '',
    s.mismatched ? `${s.mismatched} mismatched` : '',
    s.skipped ? `generator ${s.skipped} behind` : '',
    s.serverDrops ? `${s.serverDrops} dropped by the kernel at the server's full socket` : '',
    s.loadDrops ? `${s.loadDrops} answers dropped at the load's socket` : '',
  ].filter(Boolean);
  return (
    `DNS during ${(s.ms / 1000).toFixed(1)} s: sent ${s.sent}, answered ${s.answered}, lost ${s.lost}; ` +
    `latency p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)}; longest silence ${ms(s.silence)}` +
    (extra.length ? ` (${extra.join(', ')})` : '')
  );
}

/** A wall time against its reference: ours/reference, lower is better. */
export function wallLine(label: string, oursMs: number, reference: string, referenceMs: number): string {
  const ratio = oursMs / referenceMs;
  const seconds = (n: number): string => (Number.isFinite(n) ? `${(n / 1000).toFixed(2)} s` : '—').padStart(9);
  return (
    `${label.padEnd(46)} ours ${seconds(oursMs)}  ${reference} ${seconds(referenceMs)}  ` +
    `ratio ${Number.isFinite(ratio) ? ratio.toFixed(3) : '—'} (ours/reference, lower is better)`
  );
}

/** The isolation targets (docs/dns-server.md): no question lost, p99 ≤ 10 ms, no error answer; RSS during listings ≤ 1.5 × before. */
export const TARGETS = { p99Ms: 10, rssRatio: 1.5 };

/** Which targets a window misses (empty: it meets them all). */
export function missedTargets(s: WindowStats, rssRatio?: number): string[] {
  const missed: string[] = [];
  if (s.lost > 0) missed.push(`lost ${s.lost} > 0`);
  if (s.errors > 0) missed.push(`${s.errors} error answers`);
  if (!(s.p99 <= TARGETS.p99Ms)) missed.push(`p99 ${ms(s.p99)} > ${TARGETS.p99Ms} ms`);
  if (rssRatio !== undefined && !(rssRatio <= TARGETS.rssRatio))
    missed.push(`RSS ×${rssRatio.toFixed(2)} > ×${TARGETS.rssRatio}`);
  return missed;
}
