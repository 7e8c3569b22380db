// The rate budget's rolling day (src/service/day-window.ts), against a model: after any
// sequence of requests and clock moves, what remains is the daily limit minus the requests
// of the buckets less than a day old, and a window rebuilt from its saved ledger says the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DayWindow } from '../../src/service/day-window.js';

const DAY_MS = 14_400; // a compressed day: buckets of 10 ms
const BUCKET_MS = DAY_MS / 1440;

describe('DayWindow', () => {
  it('counts the requests of the last day, bucket by bucket, and keeps them through its ledger', () => {
    const step = fc.oneof(fc.record({ book: fc.constant(true) }), fc.record({ advance: fc.integer({ min: 0, max: DAY_MS / 2 }) }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.array(step, { maxLength: 120 }), (perDay, steps) => {
        let now = 1_000_000;
        const clock = () => now;
        const day = new DayWindow(perDay, DAY_MS, clock);
        const booked: number[] = [];
        for (const s of steps) {
          if ('book' in s) {
            day.book(now);
            booked.push(now);
          } else now += s.advance;
          const cutoff = Math.floor((now - DAY_MS) / BUCKET_MS);
          const live = booked.filter((t) => Math.floor(t / BUCKET_MS) > cutoff).length;
          expect(day.remaining()).toBe(Math.max(0, perDay - live));
          expect(new DayWindow(perDay, DAY_MS, clock, day.toLedger()).remaining()).toBe(day.remaining());
        }
        const ledger = day.toLedger();
        expect(ledger.map(([bucket]) => bucket)).toEqual([...ledger.map(([bucket]) => bucket)].sort((a, b) => a - b));
      }),
      { numRuns: 300 },
    );
  });

  it('forgets a request one day after its bucket', () => {
    let now = 0;
    const day = new DayWindow(2, 86_400_000, () => now);
    day.book(now);
    expect(day.remaining()).toBe(1);
    now = 86_400_000 - 60_000;
    expect(day.remaining()).toBe(1);
    now = 86_400_000;
    expect(day.remaining()).toBe(2);
    expect(day.toLedger()).toEqual([]);
  });
});
