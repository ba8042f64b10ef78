/**
 * The periodic check of a replica: on a store other processes write too (PostgreSQL), every zone's serial and creation
 * time are read at a fixed interval and compared with what the engine serves, so a change whose notification was lost
 * (a dropped listening connection, a restart of the database) is caught up within about one interval even when no
 * later change of that zone comes to reveal the gap. What it finds is kept for the health checks.
 */
import { withDeadline } from '../../platform/async';
import type { ZoneMark, ZoneStore } from '../store';
import type { ZoneDrift, ZoneLoader } from './zone-loader';

export interface ReplicaCheckOptions {
  /** Between two checks (a check starts only after the one before ended). */
  everyMs: number;
  /** A check that takes longer is given up (the database is stalled): reported, tried again next time. */
  timeoutMs: number;
  /** Told every drift found, before it is brought in line (the engine passes it on to its answer workers). */
  onDrift?: (drift: ZoneDrift) => void;
  log?: { warn(obj: object, msg: string): void };
}

/** What the last checks found, for /healthz and /readyz. */
export interface ReplicaStatus {
  everyMs: number;
  /** When the last check that reached the store ended (ISO 8601); null before the first. */
  lastCheckAt: string | null;
  /** Why the last check failed; null when it succeeded. */
  error: string | null;
  /** Zones that differed from the store at two checks in a row (a reload did not bring them in line). */
  stale: { zone: string; served: number | null; store: number | null }[];
  /** Zones found behind or otherwise different since start, and reloads that followed the change log. */
  repaired: number;
  caughtUpFromLog: number;
}

export class ReplicaCheck {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private lastCheckAt: number | null = null;
  private error: string | null = null;
  /** Zones that differed at the last check, with what they differed by. */
  private differing = new Map<string, ZoneDrift>();
  private stale: ZoneDrift[] = [];
  private repaired = 0;

  constructor(
    private readonly store: ZoneStore,
    private readonly loader: ZoneLoader,
    private readonly options: ReplicaCheckOptions,
  ) {}

  start(): void {
    this.schedule();
  }

  /** Runs one check now (or waits for the one running). */
  checkNow(): Promise<void> {
    this.running ??= this.check().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  status(): ReplicaStatus {
    return {
      everyMs: this.options.everyMs,
      lastCheckAt: this.lastCheckAt === null ? null : new Date(this.lastCheckAt).toISOString(),
      error: this.error,
      stale: this.stale.map(({ zone, served, store }) => ({ zone, served, store })),
      repaired: this.repaired,
      caughtUpFromLog: this.loader.caughtUpFromLog,
    };
  }

  /** Whether the checks keep up: the last successful one is recent (within five intervals, at least 5 s). */
  current(now = Date.now()): boolean {
    return this.lastCheckAt !== null && now - this.lastCheckAt <= Math.max(5_000, 5 * this.options.everyMs);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.checkNow().finally(() => this.schedule());
    }, this.options.everyMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    let marks: Map<string, ZoneMark>;
    try {
      const ms = this.options.timeoutMs;
      marks = await withDeadline(this.store.zoneSerials(), ms, `the zone store did not answer within ${ms} ms`);
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
      return;
    }
    if (this.stopped) return;
    this.error = null;
    this.lastCheckAt = Date.now();
    const found = new Map(this.loader.check(marks).map((d) => [d.zone, d]));
    const stale: ZoneDrift[] = [];
    for (const drift of found.values()) {
      const before = this.differing.get(drift.zone);
      // the same difference as last time: what was started then did not bring it in line
      if (before && before.store === drift.store) stale.push(drift);
      if (drift.started) {
        this.repaired += 1;
        this.options.onDrift?.(drift);
      }
    }
    for (const drift of stale)
      this.options.log?.warn(
        { zone: drift.zone, served: drift.served, store: drift.store },
        'zone still differs from the store after a reload',
      );
    this.differing = found;
    this.stale = stale;
  }
}
