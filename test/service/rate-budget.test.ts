// The RateBudget on a fake clock that its fake sleep advances: when requests may start,
// what the window and the daily ledger count, and how a 429 blocks.
import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { fakeBudget } from '../helpers/service/fake-budget.js';

/** Start times of `n` requests that each take `durationMs`, one after another. */
async function run(b: ReturnType<typeof fakeBudget>, n: number, durationMs = 0): Promise<number[]> {
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    const slot = await b.budget.acquire();
    starts.push(b.t.now);
    b.t.now += durationMs;
    b.budget.settle(slot);
  }
  return starts;
}

describe('the minute window', () => {
  it('lets the limit through at once, then one more per settled slot a window later', async () => {
    const b = fakeBudget({ perMinute: 3, windowMs: 1000 });
    const t0 = b.t.now;
    const starts = await run(b, 7, 10);
    // Three at once (each 10 ms), then each waits for the oldest response + one window.
    expect(starts.map((s) => s - t0)).toEqual([0, 10, 20, 1010, 1020, 1030, 2020]);
  });

  it('never has more than the limit in any window, counting from the responses', async () => {
    const b = fakeBudget({ perMinute: 5, windowMs: 1000 });
    const starts = await run(b, 40, 37);
    for (const s of starts) expect(starts.filter((x) => x > s - 1000 && x <= s).length).toBeLessThanOrEqual(5);
  });

  it('keeps a request in flight in the window however long it takes', async () => {
    const b = fakeBudget({ perMinute: 1, windowMs: 1000 });
    const first = await b.budget.acquire();
    b.t.now += 5000; // in flight for five windows
    let second: number | undefined;
    const waiting = b.budget.acquire().then(() => (second = b.t.now));
    // On the fake clock, acquire() is promise jobs only: one turn of the event loop runs
    // them all, so by then it has either resolved or parked on the slot in flight.
    await setImmediate();
    expect(second).toBeUndefined(); // still blocked by the unsettled slot
    expect(b.t.sleeps).toEqual([]); // waiting on the settle, not on a timer
    b.budget.settle(first);
    await waiting;
    expect(second).toBe(first.t + 1000); // a full window after the response
  });

  it('takes the limit from x-ratelimit-limit and books what others used from x-ratelimit-remaining', () => {
    const { budget } = fakeBudget({ windowMs: 1000 });
    expect(budget.perMinute).toBe(60);
    budget.observe(10, undefined);
    expect(budget.windowRemaining()).toBe(10);
    budget.observe(10, 4); // the service counts six more than we did: another client
    expect(budget.windowRemaining()).toBe(4);
    budget.observe(10, 7); // more left than we think: never loosened
    expect(budget.windowRemaining()).toBe(4);
  });

  it('does not take its own requests that just left the window for another client\'s', async () => {
    const b = fakeBudget({ perMinute: 2, windowMs: 1000 });
    const a = await b.budget.acquire();
    b.t.now += 10;
    b.budget.settle(a);
    b.t.now += 890;
    const late = await b.budget.acquire(); // answered slowly: a has left the window by then
    b.t.now += 300;
    b.budget.settle(late);
    // The service counted both when `late` arrived: both are ours.
    b.budget.observe(2, 0, late.startedAt);
    expect(b.budget.windowRemaining()).toBe(1);
  });

  it('schedules the next requests as the window allows (what --dry-run prints)', () => {
    const b = fakeBudget({ perMinute: 2, windowMs: 1000 });
    const t0 = b.t.now;
    expect(b.budget.schedule(5).map((t) => t - t0)).toEqual([0, 0, 1000, 1000, 2000]);
  });
});

describe('429', () => {
  it('blocks every caller until Retry-After, and counts it', async () => {
    const b = fakeBudget({ windowMs: 1000 });
    const t0 = b.t.now;
    b.budget.onRateLimited(3);
    await b.budget.acquire();
    expect(b.t.now - t0).toBe(3000);
    expect(b.budget.rateLimited).toBe(1);
  });

  it('without Retry-After, blocks until the window ends', async () => {
    const b = fakeBudget({ windowMs: 1000 });
    const t0 = b.t.now;
    b.budget.settle(await b.budget.acquire());
    b.t.now += 200;
    b.budget.onRateLimited(undefined);
    await b.budget.acquire();
    expect(b.t.now - t0).toBe(1000);
  });

  it('refuses to wait hours (the daily limit): E_RATE_LIMITED without a status', async () => {
    const b = fakeBudget({ windowMs: 60_000 });
    b.budget.onRateLimited(3600);
    await expect(b.budget.acquire()).rejects.toMatchObject({ code: 'E_RATE_LIMITED', status: undefined, retryAfter: 3600 });
    expect(b.t.sleeps).toEqual([]);
  });
});

describe('the daily ledger', () => {
  it('refuses past the day, persists, and forgets what is older than a day', async () => {
    let booked = 0;
    const onBook = () => {
      booked++;
    };
    const b = fakeBudget({ perDay: 4, perMinute: 100, onBook });
    await run(b, 3);
    expect(booked).toBe(3);
    expect(b.budget.dayRemaining()).toBe(1);
    const ledger = b.budget.toLedger();
    expect(ledger.reduce((n, [, c]) => n + c, 0)).toBe(3);

    // A later run of the scheduled job, same day: the ledger holds.
    const later = fakeBudget({ perDay: 4, perMinute: 100, ledger });
    later.t.now = b.t.now + 3_600_000;
    expect(later.budget.dayRemaining()).toBe(1);
    await run(later, 1);
    await expect(later.budget.acquire()).rejects.toMatchObject({ code: 'E_RATE_LIMITED', status: undefined });

    // A day later it is free again.
    later.t.now += 86_400_000;
    expect(later.budget.dayRemaining()).toBe(4);
    expect(later.budget.toLedger()).toEqual([]);
  });

  it('schedule() stops at the day', () => {
    const { budget } = fakeBudget({ perDay: 2 });
    expect(budget.schedule(5)).toHaveLength(2);
  });
});
