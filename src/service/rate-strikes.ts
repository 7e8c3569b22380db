/**
 * What a run makes of 429 answers (docs/sync.md#rate-limits; docs/service-interface.md#limits).
 *
 * - **A minimum backoff**: any wait shorter than `minBackoffMs` (`Retry-After: 0`, none with
 *   the window nearly over) becomes that minimum times a jitter in [1, 2), so a service asking
 *   for no wait is never hammered and clones refused together do not come back together.
 * - **Strikes**: a 429 whose request started after the previous strike's answer arrived (those
 *   in flight together are one strike); any other answer ends the series. `dayAfter` strikes
 *   in a row, each after waiting as asked, cannot be the minute's limit (the window empties
 *   while we wait): they are the day's, and the run defers its work.
 */

/** Options of {@link RateStrikes}. Durations in ms. */
export interface RateStrikeOptions {
  /** The shortest wait after a 429 (before jitter). */
  minBackoffMs: number;
  /** Strikes in a row that stand for the day's limit. */
  dayAfter: number;
  /** Random source in [0, 1) for the jitter; tests pass a fixed one. */
  random: () => number;
}

/** The decision after a 429. */
export interface StrikeOutcome {
  /** How long every request waits from now, in ms. */
  waitMs: number;
  /** True once the strikes stand for the day's limit. */
  dayLimit: boolean;
  /** Strikes in a row so far. */
  strikes: number;
}

/** Counts 429 strikes and sizes the wait after each (see the module description). */
export class RateStrikes {
  private strikes = 0;
  /** When the last strike's answer arrived (ms); a request started before it is of the same strike. */
  private lastStrikeAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: RateStrikeOptions) {}

  /**
   * Records a 429 and says how long to wait.
   * @param askedMs the wait asked for (`Retry-After`, or the window's end), ms.
   * @param now when the answer arrived, ms since the epoch.
   * @param startedAt when its request started; without one it counts as a strike.
   */
  refused(askedMs: number, now: number, startedAt: number | undefined): StrikeOutcome {
    if (startedAt === undefined || startedAt > this.lastStrikeAt) {
      this.strikes++;
      this.lastStrikeAt = now;
    }
    const { minBackoffMs, random } = this.options;
    const waitMs = askedMs >= minBackoffMs ? askedMs : minBackoffMs * (1 + Math.min(Math.max(random(), 0), 0.999_999));
    return { waitMs, dayLimit: this.strikes >= this.options.dayAfter, strikes: this.strikes };
  }

  /** An answer other than 429: the series of strikes ends. */
  answered(): void {
    this.strikes = 0;
  }
}
