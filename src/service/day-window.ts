/**
 * The rate budget's rolling day (docs/service-interface.md#limits: 1,440 requests a day):
 * requests per bucket (a minute of a real day) over the last day, never looser than a calendar
 * reset; persisted between runs (sync/store/budget-ledger.ts).
 */

/** Persisted form of the daily ledger: `[bucket, count]` pairs, oldest first (a bucket is a minute since the epoch for a real day). */
export type DailyLedger = Array<[minute: number, count: number]>;

/** Requests per bucket over the last `dayMs` ms. */
export class DayWindow {
  /** Requests per bucket (bucket = floor(ms / bucketMs)). */
  private readonly buckets = new Map<number, number>();
  /** A 1,440th of the day: a minute for a real day. */
  private readonly bucketMs: number;

  /**
   * @param perDay requests allowed in the rolling day.
   * @param dayMs the day's length, ms (tests and benchmarks compress it).
   * @param now clock, ms since the epoch.
   * @param ledger a ledger loaded from disk ({@link toLedger}).
   */
  constructor(
    readonly perDay: number,
    readonly dayMs: number,
    private readonly now: () => number,
    ledger: DailyLedger = [],
  ) {
    this.bucketMs = Math.max(1, Math.floor(dayMs / 1440));
    for (const [bucket, count] of ledger) this.buckets.set(bucket, count);
  }

  /** Requests still allowed in the rolling day. */
  remaining(): number {
    this.prune();
    let used = 0;
    for (const count of this.buckets.values()) used += count;
    return Math.max(0, this.perDay - used);
  }

  /** Counts a request started at `at` (ms since the epoch). */
  book(at: number): void {
    const bucket = Math.floor(at / this.bucketMs);
    this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + 1);
  }

  /** The ledger, oldest bucket first, for persisting. */
  toLedger(): DailyLedger {
    this.prune();
    return [...this.buckets.entries()].sort((a, b) => a[0] - b[0]);
  }

  /** Forgets the buckets a day old or more. */
  private prune(): void {
    const cutoff = Math.floor((this.now() - this.dayMs) / this.bucketMs);
    for (const bucket of this.buckets.keys()) if (bucket <= cutoff) this.buckets.delete(bucket);
  }
}
