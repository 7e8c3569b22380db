/**
 * The one gate every request passes through (docs/sync.md#rate-limits;
 * docs/service-interface.md#limits: 60 requests a minute, 1,440 a day per workspace).
 *
 * - A sliding minute window, sized from `x-ratelimit-limit` (60 until a response says
 *   otherwise) and corrected by `x-ratelimit-remaining`: when the service says fewer
 *   requests are left than we have counted, someone else shares the workspace, and the
 *   difference is booked as used.
 * - A daily ledger: requests per minute bucket over the last 24 hours (rolling, which is
 *   never looser than a calendar-day reset). It is serialisable so that it can be
 *   persisted with the sync state and hold across runs of a scheduled job.
 * - A 429 blocks every caller until `Retry-After` (or the window's end). A block longer
 *   than {@link RateBudgetOptions.maxWaitMs} (the service asking for hours: its daily limit)
 *   is not waited out: {@link RateBudget.acquire} refuses, and the caller defers the work.
 *
 * Why the minute window can never be exceeded, seen from the service: a request is counted
 * by the service when it arrives, which is after it started here and before its response
 * came back. Its slot here is kept from its start until it settled (response or failure),
 * however long that takes, and then for a full window after the response. So for any
 * request R, every other request that the service counted in the window before R's arrival
 * was still in this window when R started; R starts only when fewer than the limit are.
 *
 * Concurrency (how many requests are in flight) is bounded elsewhere with p-limit; this
 * class only decides *when* a request may start.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimitedError } from '../errors.js';

/** Persisted form of the daily ledger: `[bucket, count]` pairs, oldest first (a bucket is a minute since the epoch for a real day). */
export type DailyLedger = Array<[minute: number, count: number]>;

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
   * Longest block after a 429 that {@link RateBudget.acquire} waits out, in ms. A longer
   * `Retry-After` (the service's daily limit) makes it refuse instead. Default 120,000
   * (two real minutes: a per-minute limit never asks for more).
   */
  maxWaitMs?: number;
  /**
   * Called after every booking (the daily ledger changed), before the request may start:
   * persist the ledger there. A request starts only once the promise resolves, so a run
   * that is killed never leaves a ledger that undercounts what it sent.
   */
  onBook?: () => void | Promise<void>;
}

/** A booked request in the short window. */
export interface Slot {
  /** ms since the epoch: when the request started; when it settled, once it has. */
  t: number;
  /** ms since the epoch: when the request started. */
  readonly startedAt: number;
  /** True once the response (or failure) arrived: see {@link RateBudget.settle}. */
  settled: boolean;
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
  readonly perDay: number;
  readonly windowMs: number;
  readonly dayMs: number;
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
  /** Requests per ledger bucket (bucket = floor(ms / bucketMs); a minute for a real day). */
  private ledger = new Map<number, number>();
  private readonly bucketMs: number;
  /** No request may start before this time (ms); set by a 429. */
  private blockedUntil = 0;
  /** Serialises {@link acquire} so that concurrent callers take slots in order. */
  private queue: Promise<void> = Promise.resolve();
  /** Requests this instance let through. */
  sent = 0;
  /** 429 answers reported through {@link onRateLimited}. */
  rateLimited = 0;

  constructor(options: RateBudgetOptions = {}) {
    this.limit = options.perMinute ?? 60;
    this.perDay = options.perDay ?? 1440;
    this.windowMs = options.windowMs ?? 60_000;
    this.dayMs = options.dayMs ?? 86_400_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => sleep(ms));
    this.bucketMs = Math.max(1, Math.floor(this.dayMs / 1440));
    this.maxWaitMs = options.maxWaitMs ?? 120_000;
    this.onBook = options.onBook;
    for (const [minute, count] of options.ledger ?? []) this.ledger.set(minute, count);
  }

  /** The per-window limit in force (from `x-ratelimit-limit` once a response arrived). */
  get perMinute(): number {
    return this.limit;
  }

  /** Requests still allowed in the rolling day. */
  dayRemaining(): number {
    this.pruneLedger();
    let used = 0;
    for (const count of this.ledger.values()) used += count;
    return Math.max(0, this.perDay - used);
  }

  /** Requests still allowed in the current short window. */
  windowRemaining(): number {
    this.pruneWindow();
    return Math.max(0, this.limit - this.window.length);
  }

  /**
   * Waits until a request may start, then books it. Call {@link settle} with the slot when
   * the response (or the failure) arrived.
   *
   * @throws {RateLimitedError} `E_RATE_LIMITED` when the daily budget is spent, or when a
   *   429 asked for a wait longer than `maxWaitMs`: waiting would take hours, so the caller
   *   defers the work to the next run instead. Such an error has no `status`
   *   (docs/service-interface.md#limits; docs/sync.md#rate-limits).
   * @throws what `onBook` throws (persisting the ledger failed); the slot is settled first.
   */
  acquire(): Promise<Slot> {
    const turn = this.queue.then(() => this.waitForSlot());
    // A failed turn must not poison the queue for later callers.
    this.queue = turn.then(
      () => undefined,
      () => undefined,
    );
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

  private async waitForSlot(): Promise<Slot> {
    for (;;) {
      if (this.dayRemaining() <= 0) {
        throw new RateLimitedError(
          `daily request budget spent (${this.perDay} requests per day per workspace)`,
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
        await this.sleep(wait);
        continue;
      }
      this.pruneWindow();
      if (this.window.length < this.limit) return this.book(now);
      const oldest = this.window[0]!;
      if (oldest.settled) await this.sleep(Math.max(1, oldest.t + this.windowMs - now));
      else await new Promise<void>((resolve) => this.settleWaiters.push(resolve)); // every slot is in flight
    }
  }

  private book(at: number): Slot {
    const slot: Slot = { t: at, startedAt: at, settled: false };
    this.window.push(slot);
    const minute = Math.floor(at / this.bucketMs);
    this.ledger.set(minute, (this.ledger.get(minute) ?? 0) + 1);
    this.sent++;
    return slot;
  }

  /**
   * Corrects the window from a response's `x-ratelimit-limit` and `x-ratelimit-remaining`
   * headers (spec "Limits", rule 1). Either may be undefined when absent.
   *
   * The service counted `limit - remaining` requests in the window before the request
   * arrived. Those of ours it may have counted are every slot settled less than a window
   * before the request started (or still in flight); what it counted beyond them was sent
   * by other clients of the workspace, and is booked here as used now.
   *
   * @param startedAt when the answered request started (ms); default now.
   */
  observe(limit: number | undefined, remaining: number | undefined, startedAt?: number): void {
    if (limit !== undefined && Number.isFinite(limit) && limit > 0) this.limit = limit;
    if (remaining === undefined || !Number.isFinite(remaining)) return;
    this.pruneWindow();
    const since = (startedAt ?? this.now()) - this.windowMs;
    const ours = this.window.length + this.recent.filter((t) => t > since).length;
    const others = this.limit - remaining - ours;
    const now = this.now();
    for (let i = 0; i < others; i++) this.window.push({ t: now, startedAt: now, settled: true });
    this.sortWindow();
  }

  /**
   * Blocks every caller after a 429 until `Retry-After` seconds have passed, or until the
   * current window ends when the service gave no `Retry-After`.
   *
   * @param retryAfterSeconds the `Retry-After` value in seconds, if any.
   */
  onRateLimited(retryAfterSeconds: number | undefined): void {
    this.rateLimited++;
    const now = this.now();
    this.pruneWindow();
    const waitMs =
      retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds)
        ? retryAfterSeconds * 1000
        : this.window.length > 0
          ? this.window[0]!.t + this.windowMs - now
          : this.windowMs;
    this.blockedUntil = Math.max(this.blockedUntil, now + Math.max(0, waitMs));
  }

  /**
   * Earliest start times (ms) of the next `count` requests if nothing else used the
   * budget: what `--dry-run` prints. Stops at the daily budget.
   */
  schedule(count: number): number[] {
    this.pruneWindow();
    const window = this.window.map((s) => (s.settled ? s.t : this.now()));
    const times: number[] = [];
    let t = Math.max(this.now(), this.blockedUntil);
    const dayLeft = this.dayRemaining();
    for (let i = 0; i < Math.min(count, dayLeft); i++) {
      while (window.length > 0 && window[0]! <= t - this.windowMs) window.shift();
      if (window.length >= this.limit) t = window[0]! + this.windowMs;
      while (window.length > 0 && window[0]! <= t - this.windowMs) window.shift();
      window.push(t);
      times.push(t);
    }
    return times;
  }

  /** The daily ledger, for persisting with the sync state. */
  toLedger(): DailyLedger {
    this.pruneLedger();
    return [...this.ledger.entries()].sort((a, b) => a[0] - b[0]);
  }

  private pruneWindow(): void {
    const cutoff = this.now() - this.windowMs;
    while (this.window.length > 0 && this.window[0]!.settled && this.window[0]!.t <= cutoff) this.recent.push(this.window.shift()!.t);
    while (this.recent.length > 0 && this.recent[0]! <= cutoff - this.windowMs) this.recent.shift();
  }

  private pruneLedger(): void {
    const cutoffMinute = Math.floor((this.now() - this.dayMs) / this.bucketMs);
    for (const minute of this.ledger.keys()) if (minute <= cutoffMinute) this.ledger.delete(minute);
  }
}
