// Rate handling stays bounded whatever the service says. Headers out of
// sane bounds are ignored with a note; a 429 without a usable wait gets a minimum backoff
// with jitter; 429s that go on after waiting as asked are the day's limit (deferred).
// The budget runs on a fake clock that its fake sleep advances, with a fixed random source.
import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { RateBudgetOptions } from '../../src/service/rate-budget.js';
import { fakeBudget } from '../helpers/service/fake-budget.js';
import { MAX_RATE_LIMIT, readRateHeaders } from '../../src/service/rate-headers.js';

/** The budget on the fake clock, with a fixed random source (the jitter is 0.5 of its range). */
function fake(options: RateBudgetOptions = {}) {
  return fakeBudget({ random: () => 0.5, ...options });
}

describe('x-ratelimit-* out of bounds', () => {
  it('readRateHeaders keeps sane values and notes each one it ignores, naming header and value', () => {
    expect(readRateHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '12' }, 60)).toEqual({ limit: 60, remaining: 12, ignored: [] });
    expect(readRateHeaders({}, 60)).toEqual({ ignored: [] });
    const cases: Array<[Record<string, string>, string[]]> = [
      [{ 'x-ratelimit-limit': '2000000000', 'x-ratelimit-remaining': '0' }, ['x-ratelimit-limit "2000000000" is not a whole number from 1 to 10,000; ignored (the limit stays 60 a window)']],
      [{ 'x-ratelimit-limit': '-1' }, ['x-ratelimit-limit "-1" is not a whole number from 1 to 10,000; ignored (the limit stays 60 a window)']],
      [{ 'x-ratelimit-limit': '0' }, ['x-ratelimit-limit "0" is not a whole number from 1 to 10,000; ignored (the limit stays 60 a window)']],
      [{ 'x-ratelimit-limit': '60.5' }, ['x-ratelimit-limit "60.5" is not a whole number from 1 to 10,000; ignored (the limit stays 60 a window)']],
      [{ 'x-ratelimit-remaining': '-3' }, ['x-ratelimit-remaining "-3" is not a whole number from 0 to the limit (60); ignored']],
      [{ 'x-ratelimit-remaining': '1e3' }, ['x-ratelimit-remaining "1e3" is not a whole number from 0 to the limit (60); ignored']],
      [{ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '11' }, ['x-ratelimit-remaining "11" is not a whole number from 0 to the limit (10); ignored']],
    ];
    for (const [headers, notes] of cases) expect(readRateHeaders(headers, 60).ignored, JSON.stringify(headers)).toEqual(notes);
    // The value is quoted and cut: a header never prints a terminal escape or a page of text.
    const long = readRateHeaders({ 'x-ratelimit-limit': `\u001b[2J${'9'.repeat(100)}` }, 60).ignored[0]!;
    expect(long).toContain('"\\u001b[2J999');
    expect(long.length).toBeLessThan(160);
    expect(MAX_RATE_LIMIT).toBe(10_000);
  });

  it('RateBudget.observe ignores a limit over the cap, not whole, or below 1, and keeps the one it had', () => {
    const { budget } = fake();
    for (const limit of [20_000, 2_000_000_000, 0, -5, 60.5, Number.NaN]) budget.observe(limit, undefined);
    expect(budget.perMinute).toBe(60);
    budget.observe(MAX_RATE_LIMIT, undefined); // at the cap: believed
    expect(budget.perMinute).toBe(MAX_RATE_LIMIT);
  });

  it('RateBudget.observe ignores a remaining count that is negative, not whole, or over the limit', () => {
    const { budget } = fake({ perMinute: 10 });
    for (const remaining of [-3, 4.5, 11, Number.POSITIVE_INFINITY]) budget.observe(10, remaining);
    expect(budget.windowRemaining()).toBe(10);
    budget.observe(10, 4); // sane: six used by others
    expect(budget.windowRemaining()).toBe(4);
  });

  it('books what others used at the cap as one slot of that weight, which leaves the window whole', async () => {
    const b = fake({ windowMs: 1000 });
    const t0 = b.t.now;
    b.budget.observe(MAX_RATE_LIMIT, 0); // the whole window used by others
    expect(b.budget.windowRemaining()).toBe(0);
    expect(b.budget.schedule(2).map((t) => t - t0)).toEqual([1000, 1000]);
    await b.budget.acquire(); // waits for that one slot to leave: one sleep of a window
    expect(b.t.sleeps).toEqual([1000]);
    expect(b.budget.windowRemaining()).toBe(MAX_RATE_LIMIT - 1);
  });
});

describe('the wait after a 429', () => {
  it('Retry-After: 0 waits the minimum backoff with jitter (a sixtieth of the window, times 1 + random)', async () => {
    const b = fake({ windowMs: 60_000 });
    const t0 = b.t.now;
    b.budget.onRateLimited(0);
    await b.budget.acquire();
    expect(b.t.now - t0).toBe(1000 * 1.5);
  });

  it('the jitter follows the random source, and a longer Retry-After is kept as asked', async () => {
    const low = fake({ minBackoffMs: 200, random: () => 0 });
    low.budget.onRateLimited(0);
    await low.budget.acquire();
    expect(low.t.sleeps).toEqual([200]);
    const high = fake({ minBackoffMs: 200, random: () => 0.9 });
    high.budget.onRateLimited(undefined, undefined);
    await high.budget.acquire();
    expect(high.t.sleeps[0]).toBeGreaterThanOrEqual(200);
    const asked = fake({ minBackoffMs: 200 });
    asked.budget.onRateLimited(3);
    await asked.budget.acquire();
    expect(asked.t.sleeps).toEqual([3000]);
  });

  it('without Retry-After, when the window is all but over, waits the minimum backoff, not the few ms left', async () => {
    const b = fake({ windowMs: 60_000 });
    b.budget.settle(await b.budget.acquire());
    b.t.now += 59_990; // the slot leaves the window in 10 ms
    b.budget.onRateLimited(undefined);
    const before = b.t.now;
    await b.budget.acquire();
    expect(b.t.now - before).toBe(1500);
  });
});

describe('429s for the day', () => {
  it('four 429s in a row, each after waiting as asked, refuse every later request as deferred (no status)', async () => {
    const b = fake({ windowMs: 60_000 });
    for (let i = 1; i <= 3; i++) {
      const slot = await b.budget.acquire();
      b.budget.settle(slot);
      b.budget.onRateLimited(1, slot.startedAt);
    }
    const slot = await b.budget.acquire(); // the fourth attempt is still allowed...
    b.budget.settle(slot);
    b.budget.onRateLimited(1, slot.startedAt); // ...and refused: the day's limit
    const sleepsBefore = b.t.sleeps.length;
    const err = await b.budget.acquire().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_RATE_LIMITED', status: undefined });
    expect((err as Error).message).toBe('the service answered 429 4 times in a row, each time after waiting as it asked: taken as its daily limit');
    expect(b.t.sleeps.length).toBe(sleepsBefore); // refused at once, no more waiting
    expect(b.budget.rateLimited).toBe(4);
  });

  it('requests in flight together are one strike, and an answer that is not a 429 ends the series', async () => {
    const b = fake({ windowMs: 60_000 });
    // Four requests in flight together, all refused: one strike.
    const together = await Promise.all([1, 2, 3, 4].map(() => b.budget.acquire()));
    for (const s of together) b.budget.settle(s);
    for (const s of together) b.budget.onRateLimited(1, s.startedAt);
    // Two more strikes, then an answer: the series starts again.
    for (let i = 0; i < 2; i++) {
      const s = await b.budget.acquire();
      b.budget.settle(s);
      b.budget.onRateLimited(1, s.startedAt);
    }
    b.budget.onAnswered();
    for (let i = 0; i < 3; i++) {
      const s = await b.budget.acquire();
      b.budget.settle(s);
      b.budget.onRateLimited(1, s.startedAt);
    }
    // 9 answers of 429, never four strikes in a row: still waiting, not refusing.
    let started = false;
    const next = b.budget.acquire().then(() => (started = true));
    await setImmediate();
    await next;
    expect(started).toBe(true);
    expect(b.budget.rateLimited).toBe(9);
  });
});
