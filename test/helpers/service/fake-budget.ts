// A RateBudget on a fake clock that its fake sleep advances, for the rate tests.
import { RateBudget, type RateBudgetOptions } from '../../../src/service/rate-budget.js';

/** A fake clock: the time now (ms since the epoch) and every sleep asked for (ms). */
export interface FakeClock {
  now: number;
  sleeps: number[];
}

/**
 * A RateBudget whose clock starts at noon UTC on 22 November 2026 and moves only when the
 * budget sleeps (by the time it sleeps).
 * @param options the budget's options; `now` and `sleep` are the fake clock's.
 */
export function fakeBudget(options: RateBudgetOptions = {}): { budget: RateBudget; t: FakeClock } {
  const t: FakeClock = { now: Date.UTC(2026, 10, 22, 12), sleeps: [] };
  const budget = new RateBudget({
    now: () => t.now,
    sleep: (ms) => {
      t.sleeps.push(ms);
      t.now += ms;
      return Promise.resolve();
    },
    ...options,
  });
  return { budget, t };
}
