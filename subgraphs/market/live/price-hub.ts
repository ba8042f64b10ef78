import { PushStream, type Stream } from '../../async-streams';
import type { MarketData } from '../market-data';
import type { Quote, Ticker } from '../model';
import type { UpstreamError } from '../providers/provider';

/** What the live parts log through (a pino logger, or a test's recorder). */
export interface LiveLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** One poll of the watched tickers: the quotes it got (a ticker whose poll failed is absent). */
export interface PriceTick {
  /**
   * The driver's number for the poll (a Redis counter shared by replicas, or a local count). The hub delivers it
   * when it is above the hub's last number, else its last number + 1 (see `deliver`).
   */
  sequence: number;
  /** When the poll started. */
  at: Date;
  quotes: ReadonlyMap<Ticker, Quote>;
}

/** A `prices` event: one ticker's quote from one tick. The same object goes to every subscriber of the ticker. */
export interface PriceEvent {
  sequence: number;
  at: Date;
  quote: Quote;
}

/** A `priceTicks` event: every ticker of a subscription, in its order, at one tick (shared by equal lists). */
export interface PriceTickEvent {
  sequence: number;
  at: Date;
  quotes: Quote[];
}

/** Why opening a stream failed: a ticker without data, or the provider failing. */
export type OpenFailure = { kind: 'not-found'; ticker: Ticker } | { kind: 'upstream'; error: UpstreamError };

export class LiveOpenError extends Error {
  constructor(readonly failure: OpenFailure) {
    super(
      failure.kind === 'not-found'
        ? `no data for ticker ${failure.ticker}`
        : `market data upstream unavailable: ${failure.error.message}`,
    );
    this.name = 'LiveOpenError';
  }
}

export interface DriverHealth {
  status: 'ok' | 'degraded';
  reason?: string;
}

/** Where ticks come from: a poller in this process (local-ticker.ts), or one shared by replicas (shared-ticker.ts). */
export interface TickDriver {
  /** The hub tells the driver every time the set of watched tickers changes; an empty set stops polling. */
  watch(tickers: ReadonlySet<Ticker>): void;
  /** Timers the driver holds now (a hub nobody watches holds none). */
  readonly timers: number;
  /** `local`, or in a shared setup `leader` / `follower` (`local` while Redis is away); `idle` while nothing is watched. */
  readonly role: string;
  /** Degraded with the reason while the driver cannot work as configured (Redis away); absent = always ok. */
  health?(): DriverHealth;
  close(): Promise<void>;
}

/** A listener's tickers can shrink while it opens (tickers without data left out of a default list). */
type Listener =
  | { kind: 'prices'; tickers: readonly Ticker[]; stream: PushStream<PriceEvent> }
  | { kind: 'ticks'; tickers: readonly Ticker[]; key: string; stream: PushStream<PriceTickEvent> };

export interface OpenOptions {
  /**
   * Leave tickers without data out (logged) instead of refusing the whole stream: for the default list, which the
   * caller did not choose (the original streamed the others). Refused still when none of them has data.
   */
  skipMissing?: boolean;
}

export interface HubStats {
  watchedTickers: number;
  listeners: number;
  timers: number;
  ticks: number;
  sequence: number;
  role: string;
}

/** Events a subscriber may fall behind by before it loses the oldest (a stuck client never grows memory). */
const MAX_QUEUED = 64;

/**
 * The one place live prices come from. It counts who watches which ticker, tells its driver (which polls only
 * those, once per interval, in one batched provider call), keeps the latest quote of every watched ticker and
 * fans each tick out to every subscriber. Event objects are built once per tick and shared, so the executions
 * downstream can be shared too. A subscriber that goes away (its stream's `return()`) releases its tickers; the
 * last one out stops the driver's timer and drops the ticker's snapshot.
 */
export class PriceHub {
  private readonly listeners = new Set<Listener>();
  private readonly watched = new Map<Ticker, number>();
  private readonly latestQuote = new Map<Ticker, Quote>();
  private readonly latestEvent = new Map<Ticker, PriceEvent>();
  /** `priceTicks` events of the current tick, by ticker list (built on first use, dropped on the next tick). */
  private tickEvents = new Map<string, PriceTickEvent>();
  private sequence = 0;
  /** When the latest event was made: the latest tick's time, or the time quotes were fetched for an opening. */
  private at: Date | undefined;
  private ticks = 0;
  private driver?: TickDriver;
  /** The tickers last reported as left out, so a busy default stream logs a change once, not every connection. */
  private leftOutLogged = '';

  constructor(
    private readonly data: MarketData,
    private readonly log?: LiveLogger,
  ) {}

  /** Set once at construction time by whoever builds the driver (the driver needs the hub to deliver to). */
  attach(driver: TickDriver): void {
    this.driver = driver;
  }

  get stats(): HubStats {
    return {
      watchedTickers: this.watched.size,
      listeners: this.listeners.size,
      timers: this.driver?.timers ?? 0,
      ticks: this.ticks,
      sequence: this.sequence,
      role: this.driver?.role ?? 'none',
    };
  }

  /** Current quotes of `tickers` from one batched fresh provider call (what a driver's poll runs). */
  async poll(tickers: readonly Ticker[]): Promise<{ quotes: Map<Ticker, Quote>; failed: UpstreamError | undefined }> {
    const results = await this.data.fetchMany(
      tickers.map((ticker) => ({ kind: 'quote' as const, ticker })),
      { fresh: true },
    );
    const quotes = new Map<Ticker, Quote>();
    let failed: UpstreamError | undefined;
    results.forEach((r, i) => {
      if (!r.ok) failed ??= r.error;
      else if (r.value) quotes.set(tickers[i] as Ticker, r.value as Quote);
    });
    return { quotes, failed };
  }

  health(): DriverHealth {
    return this.driver?.health?.() ?? { status: 'ok' };
  }

  /**
   * Hands one tick to every subscriber whose tickers it carries. Its sequence is `max(tick.sequence, last + 1)`:
   * every event of every stream comes from here, so no stream ever sees a number at or below one it has seen, even
   * when the driver's number goes back — a local count while Redis was away, a Redis counter that restarted from
   * nothing, a new leader. While the replicas share a poller the driver's number is ahead (the shared counter is
   * lifted above every replica's last number), so replicas keep delivering the same numbers.
   */
  deliver(tick: PriceTick): void {
    this.sequence = Math.max(tick.sequence, this.sequence + 1);
    this.at = tick.at;
    this.ticks++;
    this.tickEvents = new Map();
    const fresh = new Map<Ticker, PriceEvent>();
    for (const [ticker, quote] of tick.quotes) {
      if (!this.watched.has(ticker)) continue;
      this.latestQuote.set(ticker, quote);
      const event: PriceEvent = { sequence: this.sequence, at: tick.at, quote };
      this.latestEvent.set(ticker, event);
      fresh.set(ticker, event);
    }
    if (fresh.size === 0) return;
    for (const listener of this.listeners) {
      if (listener.kind === 'prices') {
        for (const ticker of listener.tickers) {
          const event = fresh.get(ticker);
          if (event) listener.stream.push(event);
        }
      } else if (listener.tickers.some((t) => fresh.has(t))) {
        listener.stream.push(this.tickEvent(listener.key, listener.tickers));
      }
    }
  }

  /** One event per ticker per tick; first the current quote of each, at once. */
  async prices(tickers: readonly Ticker[]): Promise<Stream<PriceEvent>> {
    const stream = new PushStream<PriceEvent>(() => this.unlisten(listener), MAX_QUEUED);
    const listener: Listener = { kind: 'prices', tickers, stream };
    await this.open(listener, () => {
      for (const ticker of tickers) {
        stream.push(this.latestEvent.get(ticker) ?? this.initialEvent(ticker));
      }
    });
    return stream;
  }

  /** One event per tick with every ticker of the list; first the current quotes, at once. */
  async priceTicks(tickers: readonly Ticker[], options: OpenOptions = {}): Promise<Stream<PriceTickEvent>> {
    const stream = new PushStream<PriceTickEvent>(() => this.unlisten(listener), MAX_QUEUED);
    const listener: Listener = { kind: 'ticks', tickers, key: tickers.join(','), stream };
    await this.open(listener, () => stream.push(this.tickEvent(listener.key, listener.tickers)), options);
    return stream;
  }

  /** The latest quotes of `tickers`: the hub's own for watched tickers, current ones through the cache for others. */
  async snapshot(tickers: readonly Ticker[], options: OpenOptions = {}): Promise<Quote[]> {
    const missing = tickers.filter((t) => !this.latestQuote.has(t));
    const fetched = new Map<Ticker, Quote>();
    (await this.fetchQuotes(missing, options.skipMissing)).forEach((q, i) => {
      if (q) fetched.set(missing[i] as Ticker, q);
    });
    const quote = (t: Ticker) => this.latestQuote.get(t) ?? fetched.get(t);
    this.leaveOut(
      tickers,
      tickers.filter((t) => !quote(t)),
    );
    return tickers.flatMap((t) => quote(t) ?? []);
  }

  async close(): Promise<void> {
    for (const listener of [...this.listeners]) listener.stream.end();
    await this.driver?.close();
  }

  /**
   * Watches the listener's tickers first (so no tick is missed), fetches (through the shared cache) the quotes of
   * tickers the hub has none of yet, then lets `initial` push the first events. A ticker without data or a failing
   * provider undoes it all and throws LiveOpenError.
   */
  private async open(listener: Listener, initial: () => void, options: OpenOptions = {}): Promise<void> {
    this.listen(listener);
    try {
      const missing = listener.tickers.filter((t) => !this.latestQuote.has(t));
      const quotes = await this.fetchQuotes(missing, options.skipMissing);
      const without: Ticker[] = [];
      let fetched = false;
      // A tick may have brought a newer quote while we waited: keep that one.
      quotes.forEach((q, i) => {
        const ticker = missing[i] as Ticker;
        if (this.latestQuote.has(ticker)) return;
        if (q) {
          this.latestQuote.set(ticker, q);
          fetched = true;
        } else without.push(ticker);
      });
      // Quotes no tick carried make an event of their own: a number no stream has seen, stamped now. (After an idle
      // spell the hub holds nothing, and the first event would otherwise repeat the last tick's number and time.)
      if (fetched) this.step();
      if (without.length > 0) {
        this.leaveOut(listener.tickers, without);
        const drop = new Set(without);
        listener.tickers = listener.tickers.filter((t) => !drop.has(t));
        if (listener.kind === 'ticks') listener.key = listener.tickers.join(',');
        this.release(drop);
      }
    } catch (err) {
      listener.stream.end();
      throw err;
    }
    initial();
  }

  /**
   * Quotes of `tickers` through the shared cache, in order; LiveOpenError when the provider fails, or when one has
   * no data (with `skipMissing`, null for it instead).
   */
  private async fetchQuotes(tickers: readonly Ticker[], skipMissing = false): Promise<Array<Quote | null>> {
    if (tickers.length === 0) return [];
    const results = await this.data.fetchMany(tickers.map((ticker) => ({ kind: 'quote' as const, ticker })));
    return results.map((r, i) => {
      if (!r.ok) throw new LiveOpenError({ kind: 'upstream', error: r.error });
      if (!r.value && !skipMissing) throw new LiveOpenError({ kind: 'not-found', ticker: tickers[i] as Ticker });
      return r.value as Quote | null;
    });
  }

  /**
   * Checks what is left of a list after its tickers without data are left out: NOT FOUND when nothing is; else logs
   * the ones left out (once per change of that set, so a busy default stream does not log every connection).
   */
  private leaveOut(all: readonly Ticker[], without: readonly Ticker[]): void {
    if (without.length === 0) return;
    const drop = new Set(without);
    if (all.every((t) => drop.has(t))) throw new LiveOpenError({ kind: 'not-found', ticker: without[0] as Ticker });
    const key = [...drop].sort().join(',');
    if (key === this.leftOutLogged) return;
    this.leftOutLogged = key;
    this.log?.warn({ tickers: [...drop] }, 'live: no data for some tickers of the default list; they are left out');
  }

  /** A new event number and time for quotes fetched outside a tick; events built for the last number are dropped. */
  private step(): void {
    this.sequence += 1;
    this.at = new Date();
    this.tickEvents = new Map();
  }

  /** A watched ticker's first event before any tick carried it (shared by everyone who joins until then). */
  private initialEvent(ticker: Ticker): PriceEvent {
    const event: PriceEvent = {
      sequence: this.sequence,
      at: this.at ?? new Date(),
      quote: this.latestQuote.get(ticker) as Quote,
    };
    this.latestEvent.set(ticker, event);
    return event;
  }

  private tickEvent(key: string, tickers: readonly Ticker[]): PriceTickEvent {
    let event = this.tickEvents.get(key);
    if (!event) {
      event = {
        sequence: this.sequence,
        at: this.at ?? new Date(),
        quotes: tickers.map((t) => this.latestQuote.get(t) as Quote),
      };
      this.tickEvents.set(key, event);
    }
    return event;
  }

  private listen(listener: Listener): void {
    this.listeners.add(listener);
    let added = false;
    for (const ticker of new Set(listener.tickers)) {
      const n = this.watched.get(ticker) ?? 0;
      this.watched.set(ticker, n + 1);
      if (n === 0) added = true;
    }
    if (added) this.driver?.watch(new Set(this.watched.keys()));
  }

  private unlisten(listener: Listener): void {
    if (this.listeners.delete(listener)) this.release(new Set(listener.tickers));
  }

  /** Counts one watcher less for each of `tickers`; the last one out drops the ticker's state and tells the driver. */
  private release(tickers: ReadonlySet<Ticker>): void {
    let removed = false;
    for (const ticker of tickers) {
      const n = (this.watched.get(ticker) ?? 1) - 1;
      if (n > 0) {
        this.watched.set(ticker, n);
        continue;
      }
      this.watched.delete(ticker);
      this.latestQuote.delete(ticker);
      this.latestEvent.delete(ticker);
      removed = true;
    }
    if (removed) {
      this.tickEvents = new Map();
      this.driver?.watch(new Set(this.watched.keys()));
    }
  }
}
