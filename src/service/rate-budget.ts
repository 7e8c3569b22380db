/**
 * The one gate every request passes through (docs/sync.md#rate-limits;
 * docs/service-interface.md#limits: 60 requests a minute, 1,440 a day per workspace).
 *
 * - A sliding minute window, sized from `x-ratelimit-limit` and corrected by
 *   `x-ratelimit-remaining`: requests the service counted beyond ours were sent by another
 *   client of the workspace and are booked as used (one weighted slot, so memory never follows
 *   a header's value; the headers are bounded first, `rate-headers.ts`).
 * - A daily ledger per minute bucket over the last 24 hours (`day-window.ts`), persisted.
 * - A 429 blocks every caller until `Retry-After` (or the window's end), at least a minimum
 *   backoff with jitter. A block longer than `maxWaitMs`, or 429s that go on after waiting as
 *   asked, stand for the daily limit: {@link RateBudget.acquire} refuses and the caller defers
 *   the work.
 *
 * Why the minute window is never exceeded as the service sees it: the service counts a request
 * when it arrives, after it started here and before its response came back. Its slot is kept
 * from its start until it settled, then for a full window; so every request the service counted
 * in the window before R arrived was still in this window when R started, and R starts only
 * when fewer than the limit are. Concurrency is bounded elsewhere (p-limit): this class only
 * decides *when* a request may start.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { abortable } from '../core/abortable.js';
import { RateLimitedError } from '../core/errors.js';
import { DayWindow, type DailyLedger } from './day-window.js';
import { MAX_RATE_LIMIT } from './rate-headers.js';

export type { DailyLedger } from './day-window.js';

/** Options of {@link RateBudget}. All durations are milliseconds. */
export interface RateBudgetOptions {
  /** Requests per window before the first response tells us the limit. Default 60. */
  perMinute?: number;
  /** Requests per rolling day. Default 1,440. */
  perDay?: number;
  /** Length of the short window in ms. Default 60,000 (tests and benchmarks compress it). */
  windowMs?: number;
  /** Length of the long window in ms. Default 86,400,000. */
  dayMs?: number;
  /** Clock, ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Sleep; default a real timer. */
  sleep?: (ms: number) => Promise<void>;
  /** A ledger loaded from the sync state (see {@link RateBudget.toLedger}). */
  ledger?: DailyLedger;
  /**
   * Longest block after a 429 that {@link RateBudget.acquire} waits out, in ms; a longer
   * `Retry-After` (the daily limit) makes it refuse. Default 120,000 (a per-minute limit never asks for more).
   */
  maxWaitMs?: number;
  /**
   * Called after every booking, before the request may start: persist the ledger there, so a
   * killed run never leaves a ledger that undercounts what it sent.
   */
  onBook?: () => void | Promise<void>;
  /** Shortest wait after a 429, before jitter. Default a sixtieth of the window. */
  minBackoffMs?: number;
  /** 429s in a row, each sent after waiting as asked, that stand for the day's limit. Default 4. */
  dayLimitStrikes?: number;
  /** Random source in [0, 1) for the jitter after a 429. Default `Math.random`. */
  random?: () => number;
}

/** A booked request in the short window. */
export interface Slot {
  /** ms since the epoch: when the request started; when it settled, once it has. */
  t: number;
  /** ms since the epoch: when the request started. */
  readonly startedAt: number;
  /** True once the response (or failure) arrived: see {@link RateBudget.settle}. */
  settled: boolean;
  /** Requests the slot stands for: 1 (ours, the default), more for other clients' ({@link RateBudget.observe}). */
  weight?: number;
}

/**
 * Gates requests under a per-minute and a per-day limit.
 *
 * @example
 * ```ts
 * const budget = new RateBudget({ ledger: state.budget });
 * const slot = await budget.acquire(); // waits for a slot
 * const res = await send();
 * budget.settle(slot);                 // the service counted it by now
 * budget.observe(limit, remaining);    // from the response headers
 * ```
 */
export class RateBudget {
  private limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /**
   * Requests in the current short window: settled ones oldest first, then the ones in
   * flight. A slot in flight never leaves the window; a settled slot's time is when its
   * response arrived (the service counted the request no later than that), and it leaves
   * one window after it.
   */
  private window: Slot[] = [];
  /** Times of settled slots that left the window less than a window ago (see {@link observe}). */
  private recent: number[] = [];
  /** Callers waiting for an in-flight slot to settle. */
  private settleWaiters: Array<() => void> = [];
  private readonly maxWaitMs: number;
  private readonly onBook: (() => void | Promise<void>) | undefined;
  /** The rolling day's requests. */
  private readonly day: DayWindow;
  /** No request may start before this time (ms); set by a 429. */
  private blockedUntil = 0;
  private readonly minBackoffMs: number;
  private readonly dayLimitStrikes: number;
  private readonly random: () => number;
  /** 429s in a row: those in flight together are one strike; any other answer ends the series. */
  private strikes = 0;
  /** When the last strike's answer arrived (ms); a request started before it is of the same strike. */
  private lastStrikeAt = Number.NEGATIVE_INFINITY;
  /** Set once 429s stand for the day's limit: every later request is refused (deferred). */
  private dayRefusal: RateLimitedError | undefined;
  /** Serialises {@link acquire} so that concurrent callers take slots in order. */
  private queue: Promise<void> = Promise.resolve();
  /** Requests this instance let through. */
  sent = 0;
  /** 429 answers reported through {@link onRateLimited}. */
  rateLimited = 0;

  constructor(options: RateBudgetOptions = {}) {
    this.limit = options.perMinute ?? 60;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.day = new DayWindow(options.perDay ?? 1440, options.dayMs ?? 86_400_000, this.now, options.ledger);
    this.sleep = options.sleep ?? ((ms) => sleep(ms));
    this.maxWaitMs = options.maxWaitMs ?? 120_000;
    this.onBook = options.onBook;
    this.minBackoffMs = options.minBackoffMs ?? this.windowMs / 60;
    this.dayLimitStrikes = options.dayLimitStrikes ?? 4;
    this.random = options.random ?? Math.random;
  }

  /** The per-window limit in force (from `x-ratelimit-limit` once a response arrived). */
  get perMinute(): number {
    return this.limit;
  }

  /** Requests still allowed in the rolling day. */
  dayRemaining(): number {
    return this.day.remaining();
  }

  /** Requests still allowed in the current short window. */
  windowRemaining(): number {
    this.pruneWindow();
    return Math.max(0, this.limit - this.used());
  }

  /** Requests counted in the short window (each slot by its weight). */
  private used(): number {
    return this.window.reduce((n, s) => n + (s.weight ?? 1), 0);
  }

  /**
   * Waits until a request may start, then books it; call {@link settle} with the slot when the
   * response (or the failure) arrived.
   *
   * @throws {RateLimitedError} `E_RATE_LIMITED` (no `status`) when the daily budget is spent, a
   *   429 asked for more than `maxWaitMs`, or 429s went on after waiting as asked: the caller
   *   defers the work to the next run (docs/service-interface.md#limits).
   * @throws what `onBook` throws; the slot is settled first.
   * @param signal once aborted, no slot is booked: a wait for one stops, and a turn queued
   *   behind other callers' throws when it comes (theirs end first).
   * @throws `signal.reason` when `signal` aborted before a slot was booked.
   */
  acquire(signal?: AbortSignal): Promise<Slot> {
    const turn = this.queue.then(() => this.waitForSlot(signal));
    // A failed turn must not poison the queue for later callers.
    this.queue = turn.then(() => undefined, () => undefined);
    // Persisting happens outside the queue, so that concurrent callers share writes.
    return turn.then(async (slot) => {
      try {
        await this.onBook?.();
      } catch (err) {
        this.settle(slot);
        throw err;
      }
      return slot;
    });
  }

  /** Marks a slot settled at now: call when the request's response (or failure) arrived. */
  settle(slot: Slot): void {
    if (slot.settled) return;
    slot.t = Math.max(slot.t, this.now());
    slot.settled = true;
    this.sortWindow();
    const waiters = this.settleWaiters;
    this.settleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Requests started and not yet settled. */
  get inFlight(): number {
    return this.window.filter((s) => !s.settled).length;
  }

  private sortWindow(): void {
    const key = (s: Slot) => (s.settled ? s.t : Number.POSITIVE_INFINITY);
    this.window.sort((a, b) => key(a) - key(b));
  }

  /** @throws `signal.reason` once it aborted: checked on every pass, so never after booking. */
  private async waitForSlot(signal: AbortSignal | undefined): Promise<Slot> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.dayRefusal) throw this.dayRefusal;
      if (this.dayRemaining() <= 0) {
        throw new RateLimitedError(
          `daily request budget spent (${this.day.perDay} requests per day per workspace)`,
          { hint: 'the remaining work is deferred to the next run' },
        );
      }
      const now = this.now();
      if (now < this.blockedUntil) {
        const wait = this.blockedUntil - now;
        if (wait > this.maxWaitMs) {
          throw new RateLimitedError(`the service asked to wait ${Math.ceil(wait / 1000)} s before the next request (429 Retry-After)`, {
            retryAfter: Math.ceil(wait / 1000),
            hint: 'the workspace has likely spent its daily requests; the remaining work is deferred to the next run',
          });
        }
        await abortable(this.sleep(wait), signal);
        continue;
      }
      this.pruneWindow();
      if (this.used() < this.limit) return this.book(now);
      const oldest = this.window[0]!;
      if (oldest.settled) await abortable(this.sleep(Math.max(1, oldest.t + this.windowMs - now)), signal);
      else await abortable(new Promise<void>((resolve) => this.settleWaiters.push(resolve)), signal); // every slot is in flight
    }
  }

  private book(at: number): Slot {
    const slot: Slot = { t: at, startedAt: at, settled: false };
    this.window.push(slot);
    this.day.book(at);
    this.sent++;
    return slot;
  }

  /**
   * Corrects the window from a response's `x-ratelimit-limit` and `x-ratelimit-remaining`
   * (spec "Limits", rule 1; either may be undefined). The service counted `limit - remaining`
   * requests before this one arrived; ours among them are the slots in flight or settled less
   * than a window before it started, and the rest, booked now as one weighted slot, were
   * other clients'. A limit outside 1 to {@link MAX_RATE_LIMIT}, or a remaining count outside
   * 0 to the limit, is ignored.
   *
   * @param startedAt when the answered request started (ms); default now.
   */
  observe(limit: number | undefined, remaining: number | undefined, startedAt?: number): void {
    if (limit !== undefined && Number.isInteger(limit) && limit >= 1 && limit <= MAX_RATE_LIMIT) this.limit = limit;
    if (remaining === undefined || !Number.isInteger(remaining) || remaining < 0 || remaining > this.limit) return;
    this.pruneWindow();
    const since = (startedAt ?? this.now()) - this.windowMs;
    // Counted by the service already: the window (ours and others' booked before) and ours that left it since.
    const others = this.limit - remaining - this.used() - this.recent.filter((t) => t > since).length;
    if (others <= 0) return;
    const now = this.now();
    this.window.push({ t: now, startedAt: now, settled: true, weight: others });
    this.sortWindow();
  }

  /** An answer other than 429 arrived: a series of 429s (see {@link onRateLimited}) ends. */
  onAnswered(): void {
    this.strikes = 0;
  }

  /**
   * Blocks every caller after a 429 until `Retry-After` (or the window's end). A shorter wait
   * than `minBackoffMs` (`Retry-After: 0`, none with the window nearly over) becomes that minimum
   * times a jitter in [1, 2), so a service asking for no wait is never hammered and clones
   * refused together do not come back together. `dayLimitStrikes` 429s in a row, each sent after
   * waiting as asked, cannot be the minute's limit (the window empties while we wait): they are
   * the day's, and every later {@link acquire} refuses.
   *
   * @param retryAfterSeconds the `Retry-After` value in seconds, if any.
   * @param startedAt when the refused request started (ms); requests in flight together
   *   are one strike. Default: counted as a strike.
   */
  onRateLimited(retryAfterSeconds: number | undefined, startedAt?: number): void {
    this.rateLimited++;
    const now = this.now();
    this.pruneWindow();
    const asked =
      retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds)
        ? retryAfterSeconds * 1000
        : this.window.length > 0
          ? this.window[0]!.t + this.windowMs - now
          : this.windowMs;
    if (startedAt === undefined || startedAt > this.lastStrikeAt) {
      this.strikes++;
      this.lastStrikeAt = now;
    }
    const waitMs = asked >= this.minBackoffMs ? asked : this.minBackoffMs * (1 + Math.min(Math.max(this.random(), 0), 0.999_999));
    this.blockedUntil = Math.max(this.blockedUntil, now + waitMs);
    if (this.strikes >= this.dayLimitStrikes && !this.dayRefusal) {
      this.dayRefusal = new RateLimitedError(`the service answered 429 ${this.strikes} times in a row, each time after waiting as it asked: taken as its daily limit`, {
        hint: 'the workspace has likely spent its daily requests (1,440 a day); the remaining work is deferred to the next run',
      });
    }
  }

  /**
   * Earliest start times (ms) of the next `count` requests if nothing else used the
   * budget: what `--dry-run` prints. Stops at the daily budget.
   */
  schedule(count: number): number[] {
    this.pruneWindow();
    // [time, weight] of each slot, oldest first; `used` is the sum of the weights.
    const window = this.window.map((s): [number, number] => [s.settled ? s.t : this.now(), s.weight ?? 1]);
    let used = window.reduce((n, [, w]) => n + w, 0);
    const leave = (t: number) => {
      while (window.length > 0 && window[0]![0] <= t - this.windowMs) used -= window.shift()![1];
    };
    const times: number[] = [];
    let t = Math.max(this.now(), this.blockedUntil);
    const dayLeft = this.dayRemaining();
    for (let i = 0; i < Math.min(count, dayLeft); i++) {
      leave(t);
      while (used >= this.limit && window.length > 0) {
        t = Math.max(t, window[0]![0] + this.windowMs);
        leave(t);
      }
      window.push([t, 1]);
      used++;
      times.push(t);
    }
    return times;
  }

  /** The daily ledger, for persisting with the sync state. */
  toLedger(): DailyLedger {
    return this.day.toLedger();
  }

  private pruneWindow(): void {
    const cutoff = this.now() - this.windowMs;
    while (this.window.length > 0 && this.window[0]!.settled && this.window[0]!.t <= cutoff) {
      const left = this.window.shift()!;
      if (left.weight === undefined) this.recent.push(left.t);
    }
    while (this.recent.length > 0 && this.recent[0]! <= cutoff - this.windowMs) this.recent.shift();
  }
}
