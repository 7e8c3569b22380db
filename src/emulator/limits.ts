/**
 * The emulator's enforcement of the service's limits (docs/service-interface.md#limits): a
 * sliding-window counter per workspace and window length.
 */

/** Counts events in a sliding window of `windowMs` and refuses past `limit`. */
export class SlidingLimiter {
  private events: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  private prune(): void {
    const cutoff = this.now() - this.windowMs;
    let i = 0;
    while (i < this.events.length && this.events[i]! <= cutoff) i++;
    if (i > 0) this.events.splice(0, i);
  }

  /** Events still allowed in the current window. */
  remaining(): number {
    this.prune();
    return Math.max(0, this.limit - this.events.length);
  }

  /** 0 when an event may happen now; else ms until the oldest event leaves the window. */
  waitMs(): number {
    this.prune();
    if (this.events.length < this.limit) return 0;
    return this.events[0]! + this.windowMs - this.now();
  }

  /** Records an event now. */
  take(): void {
    this.events.push(this.now());
  }
}
