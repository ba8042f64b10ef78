import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { SubgraphLogger } from '../../descriptor';
import { apiError, apiErrorOf, type FieldError } from '../errors';

/**
 * Long writes run in the background (docs/dns-api.md, "Long operations"): each started one is an operation the
 * caller polls by id until it has succeeded (with the result the synchronous form would have given) or failed (with
 * its error). They live in this process's memory (bounded, forgotten on restart); with `SharedOperations` (Redis)
 * every replica can read every replica's operations too, and one whose replica stopped reporting is told as failed.
 */

export type OperationKind = 'create_zone' | 'import_zone' | 'enable_dnssec' | 'disable_dnssec' | 'rotate_dnssec';
export type OperationState = 'running' | 'succeeded' | 'failed';

/** How far an operation is: `done` of `total` (null: not known) steps, e.g. records signed. */
export interface OperationProgress {
  done: number;
  total: number | null;
}

/** Reports how far a long write is; called by whatever knows (the DNS engine while it signs, when it tells). */
export type ProgressReport = (done: number, total: number | null) => void;

/** Why an operation failed: the error the synchronous form would have answered with. */
export interface OperationFailure {
  /** The error code (`CONFLICT`, `NOT_FOUND`, `BAD_USER_INPUT`, …); `INTERNAL_SERVER_ERROR` for a bug (logged). */
  code: string;
  message: string;
  /** Each invalid field, for BAD_USER_INPUT; null otherwise. */
  errors: FieldError[] | null;
}

export interface LongOperation {
  readonly id: string;
  readonly kind: OperationKind;
  /** The zone it works on (lower case, no trailing dot). */
  readonly zone: string;
  /** The id of the user who started it: only they and admins see it. */
  readonly owner: string;
  state: OperationState;
  /** Null until (unless) the work reports how far it is. */
  progress: OperationProgress | null;
  /** What the work returned, once it has succeeded. */
  result: unknown;
  error: OperationFailure | null;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  finishedAt: string | null;
}

/**
 * Where replicas show each other their background operations, so a caller polling `GET /operations/{id}` through a
 * load balancer finds the operation whichever replica answers. The replica running an operation writes it there
 * when it starts, as it progresses (at most once a second), on a heartbeat while it runs, and when it ends; the
 * others only read. Only the replica that runs the work holds the work itself.
 */
export interface SharedOperations {
  /** Keeps `operation` as it is now for `ttlMs` (replacing what was kept under its id). */
  put(operation: SharedOperation, ttlMs: number): Promise<void>;
  /** The operation kept under `id`, if any. */
  get(id: string): Promise<SharedOperation | undefined>;
}

/** An operation as replicas share it: with when its replica last said it still runs it (ms since the epoch). */
export type SharedOperation = LongOperation & { heartbeatAt: number };

export interface OperationLimits {
  /** How long a finished operation can still be read (milliseconds). */
  keepFinishedMs: number;
  /** Most finished operations kept: past it, the oldest finished are forgotten first. */
  maxFinished: number;
  /** Most operations running at once: one more is refused (TOO_MANY_REQUESTS) until one ends. */
  maxRunning: number;
}

/** docs/dns-api.md, "Long operations". */
export const OPERATION_LIMITS: OperationLimits = { keepFinishedMs: 3_600_000, maxFinished: 1_000, maxRunning: 100 };

/** Seconds a caller refused for too many running operations is told to wait. */
const RETRY_AFTER_S = 5;

/**
 * How often the replica running an operation says so where replicas share them, how often at most it shares its
 * progress, and how long without a word makes the others take that replica as gone (a few heartbeats missed).
 */
export const SHARING = { heartbeatMs: 5_000, progressMs: 1_000, goneAfterMs: 30_000 } as const;

/** The operations of one process: started, run in the background, kept a while once finished. */
export class Operations {
  private readonly running = new Map<string, LongOperation>();
  /** Finished operations, oldest finish first (a Map keeps insertion order). */
  private readonly finished = new Map<string, { operation: LongOperation; at: number }>();
  private readonly works = new Set<Promise<void>>();
  /** When each running operation last went to the shared place (ms). */
  private readonly sharedAt = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | undefined;
  private shareFailing = false;

  constructor(
    private readonly limits: OperationLimits = OPERATION_LIMITS,
    private readonly log?: SubgraphLogger,
    private readonly now: () => number = Date.now,
    /** Where replicas show each other their operations (none: each process sees only its own). */
    private readonly shared?: SharedOperations,
  ) {}

  /**
   * Starts `work` in the background and returns the operation as it starts (running). The work's own checks come
   * back as the operation's error; more than `maxRunning` at once is refused here, before anything starts.
   */
  start(
    kind: OperationKind,
    zone: string,
    owner: string,
    work: (progress: ProgressReport) => Promise<unknown>,
  ): LongOperation {
    this.prune();
    if (this.running.size >= this.limits.maxRunning)
      throw apiError(
        'TOO_MANY_REQUESTS',
        `${this.limits.maxRunning} long operations are running already: wait for one to finish, or send the request ` +
          'without respond-async',
        { retryAfter: RETRY_AFTER_S },
      );
    const operation: LongOperation = {
      id: randomUUID(),
      kind,
      zone,
      owner,
      state: 'running',
      progress: null,
      result: null,
      error: null,
      createdAt: new Date(this.now()).toISOString(),
      finishedAt: null,
    };
    this.running.set(operation.id, operation);
    this.share(operation);
    this.beat();
    const report: ProgressReport = (done, total) => {
      if (operation.state !== 'running') return;
      operation.progress = { done, total };
      if (this.now() - (this.sharedAt.get(operation.id) ?? 0) >= SHARING.progressMs) this.share(operation);
    };
    // The work starts on a later turn of the event loop, once the answer saying it started is out: its first steps
    // may hold the loop (a master file is parsed in one go), which would hold back that answer until they are done.
    const settled = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => work(report))
      .then(
        (result) => this.finish(operation, 'succeeded', result, null),
        (err: unknown) => this.finish(operation, 'failed', null, this.failureOf(operation, err)),
      );
    this.works.add(settled);
    void settled.finally(() => this.works.delete(settled));
    return { ...operation };
  }

  /** The operation, while it runs and for a while after (undefined: unknown, or forgotten). */
  get(id: string): LongOperation | undefined {
    this.prune();
    return this.running.get(id) ?? this.finished.get(id)?.operation;
  }

  /**
   * The operation, whichever replica runs it: this process's own first, else the shared one (a running one whose
   * replica has not said so for `goneAfterMs` is told as failed: that replica stopped). UNAVAILABLE when the shared
   * place cannot be read.
   */
  async find(id: string): Promise<LongOperation | undefined> {
    const own = this.get(id);
    if (own || !this.shared) return own;
    let kept: SharedOperation | undefined;
    try {
      kept = await this.shared.get(id);
    } catch (err) {
      throw apiError('UNAVAILABLE', `the operations of other replicas cannot be read now: ${(err as Error).message}`);
    }
    if (!kept) return undefined;
    const { heartbeatAt, ...operation } = kept;
    if (operation.state !== 'running' || this.now() - heartbeatAt < SHARING.goneAfterMs) return operation;
    return {
      ...operation,
      state: 'failed',
      error: {
        code: 'UNAVAILABLE',
        message:
          'the replica running this operation stopped before it finished; it was applied whole or not at all: ' +
          'read the zone to see which',
        errors: null,
      },
      finishedAt: new Date(heartbeatAt).toISOString(),
    };
  }

  /** How many run now. */
  get active(): number {
    return this.running.size;
  }

  /** Resolves once every operation started so far has finished (shutdown: their writes end before the store). */
  async drain(): Promise<void> {
    while (this.works.size > 0) await Promise.all([...this.works]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Writes the operation where replicas share them, in the background (a failure is logged once, never thrown). */
  private share(operation: LongOperation): void {
    if (!this.shared) return;
    const at = this.now();
    if (operation.state === 'running') this.sharedAt.set(operation.id, at);
    else this.sharedAt.delete(operation.id);
    this.shared.put({ ...operation, heartbeatAt: at }, this.limits.keepFinishedMs).then(
      () => {
        if (this.shareFailing) this.log?.info({}, 'operations: shared with the other replicas again');
        this.shareFailing = false;
      },
      (err: unknown) => {
        if (!this.shareFailing)
          this.log?.warn({ err }, 'operations: cannot share with the other replicas; polling through another fails');
        this.shareFailing = true;
      },
    );
  }

  /** While operations run (and are shared), says every `heartbeatMs` that they still run. */
  private beat(): void {
    if (!this.shared || this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      for (const operation of this.running.values()) this.share(operation);
      if (this.running.size === 0) {
        clearInterval(this.heartbeat);
        this.heartbeat = undefined;
      }
    }, SHARING.heartbeatMs);
    this.heartbeat.unref();
  }

  private finish(
    operation: LongOperation,
    state: OperationState,
    result: unknown,
    error: OperationFailure | null,
  ): void {
    operation.state = state;
    operation.result = result;
    operation.error = error;
    operation.finishedAt = new Date(this.now()).toISOString();
    this.running.delete(operation.id);
    this.finished.set(operation.id, { operation, at: this.now() });
    this.share(operation);
    this.prune();
  }

  /** Forgets finished operations past their time, then the oldest beyond the most kept. */
  private prune(): void {
    const oldest = this.now() - this.limits.keepFinishedMs;
    for (const [id, { at }] of this.finished) {
      if (at >= oldest && this.finished.size <= this.limits.maxFinished) break;
      this.finished.delete(id);
    }
  }

  /** The error as the synchronous form would have answered it; anything but an API error is a bug, logged. */
  private failureOf(operation: LongOperation, err: unknown): OperationFailure {
    const mapped = apiErrorOf(err);
    const code = mapped instanceof GraphQLError ? mapped.extensions.code : undefined;
    if (mapped instanceof GraphQLError && typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') {
      const fields = mapped.extensions.errors;
      return { code, message: mapped.message, errors: Array.isArray(fields) ? (fields as FieldError[]) : null };
    }
    this.log?.error({ err, operation: operation.id, kind: operation.kind, zone: operation.zone }, 'operation failed');
    return { code: 'INTERNAL_SERVER_ERROR', message: 'internal error', errors: null };
  }
}
