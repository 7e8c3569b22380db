// Push against a faulty service: lost answers, 5xx, timeouts, 429 bursts, the limits,
// the day's budget, and the lock. Each asserts zero duplicates and nothing lost.
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../../src/service/rate-budget.js';
import type { EmulatorOptions, RequestLogRecord } from '../../../src/emulator/server.js';
import { Journal } from '../../../src/sync/recovery/journal.js';
import { acquireLock } from '../../../src/sync/store/lock.js';
import { push } from '../../../src/sync/push/push.js';
import type { EmulatorFixture } from '../../helpers/service/emulator.js';
import { expectEachOnceAndIntact, pushSetup, writeEntries, type PushSetup } from '../../helpers/sync/entries.js';
import { seeded } from '../../helpers/random.js';

let s: PushSetup;
let fx: EmulatorFixture;
let contentDir: string;
let stateDir: string;
async function setup(options: EmulatorOptions = {}) {
  s = await pushSetup(options);
  ({ fx, contentDir, stateDir } = s);
}
afterEach(() => s.close());
const posts = () => s.posts();
const lists = () => s.lists();

/** The most requests the service counted in any window of `windowMs` (429s are not counted). */
function busiestWindow(log: RequestLogRecord[], windowMs: number): number {
  const counted = log.filter((r) => r.status !== 429 && r.workspace).map((r) => r.at);
  return Math.max(0, ...counted.map((t) => counted.filter((x) => x > t - windowMs && x <= t).length));
}

/**
 * Resolves once the emulator has answered (or dropped) every POST it has received: a
 * stalled create has then committed its entry, whether or not the client still waits.
 */
function everyPostAnswered(): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (fx.emu.log.some((r) => r.method === 'POST' && r.ms === undefined)) return;
      fx.emu.events.off('response', check);
      resolve();
    };
    fx.emu.events.on('response', check);
    check();
  });
}

describe('lost and failed answers: at most once', () => {
  it('every 3rd POST dropped after commit: zero duplicates, one list call reconciles them all', async () => {
    await setup({ faults: { dropAfterCommitEvery: 3 } });
    const originals = await writeEntries(contentDir, 12);
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(posts().filter((p) => p.dropped)).toHaveLength(4);
    expect(r.pushed.filter((p) => p.how === 'reconciled')).toHaveLength(4);
    expect(r.pushed).toHaveLength(12);
    expect(lists()).toHaveLength(2); // the plan's, and one for the four lost answers
    expect(posts()).toHaveLength(12); // none sent twice
    await expectEachOnceAndIntact(fx, contentDir, originals);
    expect((await Journal.open(stateDir)).list()).toEqual([]);
  });

  it('5xx before anything is created (30% of requests): sent again, every file once', async () => {
    await setup({ faults: { serverErrorRate: 0.3, random: seeded(7) } });
    const originals = await writeEntries(contentDir, 10);
    // Reruns, as the scheduled job would, until nothing is pending.
    for (let run = 0; run < 6; run++) {
      const r = await push({ client: fx.client(), contentDir, stateDir }).catch((err: { code?: string }) => {
        if (err.code !== 'E_SERVICE') throw err; // the plan's own listing failed 4 times: next run
        return undefined;
      });
      if (r && r.pending.length === 0) break;
    }
    expect(fx.emu.log.filter((r) => r.status === 500).length).toBeGreaterThan(2);
    await expectEachOnceAndIntact(fx, contentDir, originals);
  });

  it('5xx after the entry was committed: found by the list, not sent again', async () => {
    await setup({ faults: { errorAfterCommitEvery: 2 } });
    const originals = await writeEntries(contentDir, 6);
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(posts()).toHaveLength(6);
    expect(posts().filter((p) => p.status === 500)).toHaveLength(3);
    expect(r.pushed.filter((p) => p.how === 'reconciled')).toHaveLength(3);
    await expectEachOnceAndIntact(fx, contentDir, originals);
  });

  it('timeouts while the service is still creating the entry: push waits out the in-doubt time and finds them', async () => {
    // Every 2nd create is held 400 ms before commit; the client gives up after 150 ms.
    await setup({ faults: { stallCreateEvery: 2, stallMs: 400 } });
    const originals = await writeEntries(contentDir, 6);
    const r = await push({ client: fx.client({ timeoutMs: 150 }), contentDir, stateDir, inDoubtMs: 1200 });
    expect(posts()).toHaveLength(6);
    expect(r.pushed.filter((p) => p.how === 'reconciled')).toHaveLength(3);
    await expectEachOnceAndIntact(fx, contentDir, originals);
  });

  it('... and the in-doubt time is what prevents the duplicate: set shorter than the service takes, one appears', async () => {
    // The documented assumption (docs/sync.md#push-guarantees): the service finishes a request
    // within the in-doubt time (twice the request timeout). This shows the boundary.
    await setup({ faults: { stallCreateEvery: 1, stallMs: 500 } });
    await writeEntries(contentDir, 1);
    await push({ client: fx.client({ timeoutMs: 100 }), contentDir, stateDir, inDoubtMs: 150 });
    await everyPostAnswered(); // the service finishes what it was given
    expect(fx.store.listEntries(fx.ws).map((e) => e.slug)).toContain('entry-1-things-2');
  });

  it('a timeout after the commit (the answer is late): found at once, not sent again', async () => {
    await setup({ faults: { stallCreateEvery: 3, stallMs: 400, stallAfterCommit: true } });
    const originals = await writeEntries(contentDir, 6);
    await push({ client: fx.client({ timeoutMs: 150 }), contentDir, stateDir, inDoubtMs: 1200 });
    expect(posts()).toHaveLength(6);
    await expectEachOnceAndIntact(fx, contentDir, originals);
  });
});

describe('the limits', () => {
  it('never more than the advertised limit in any window, and no 429 from our own pacing', async () => {
    await setup({ limits: { perMinute: 8, windowMs: 600 } });
    const originals = await writeEntries(contentDir, 30);
    const r = await push({ client: fx.client(), contentDir, stateDir, concurrency: 4 });
    expect(r.pushed).toHaveLength(30);
    expect(fx.emu.log.filter((l) => l.status === 429)).toEqual([]);
    expect(fx.emu.log.length).toBeGreaterThanOrEqual(32);
    expect(busiestWindow(fx.emu.log, 600)).toBeLessThanOrEqual(8);
    await expectEachOnceAndIntact(fx, contentDir, originals);
  });

  it('the window test itself can fail: a client that ignores the limit meets 429s', async () => {
    await setup({ limits: { perMinute: 8, windowMs: 600 } });
    await writeEntries(contentDir, 12);
    class Careless extends RateBudget {
      override observe(): void {} // deaf to x-ratelimit-*
    }
    const careless = fx.client({ budget: new Careless({ perMinute: 1000, windowMs: 600 }), rateLimitRetries: 0 });
    await push({ client: careless, contentDir, stateDir, concurrency: 16 });
    expect(fx.emu.log.filter((l) => l.status === 429).length).toBeGreaterThan(0);
  });

  it('a 429 burst is waited out for Retry-After and never counted as success', async () => {
    await setup({ faults: { rateLimitBurst: 3, rateLimitBurstRetryAfter: 1 } });
    const originals = await writeEntries(contentDir, 3);
    const r = await push({ client: fx.client(), contentDir, stateDir, concurrency: 1 });
    const burst = fx.emu.log.filter((l) => l.fault === '429-burst');
    expect(burst).toHaveLength(3);
    const last429 = burst[2]!.at;
    const next = fx.emu.log.find((l) => l.at > last429 && l.status !== 429)!;
    expect(next.at - last429).toBeGreaterThanOrEqual(1000); // Retry-After: 1
    expect(r.pushed).toHaveLength(3);
    await expectEachOnceAndIntact(fx, contentDir, originals);
  });

  it('429s beyond the retries: the file stays pending and untouched, nothing journaled', async () => {
    await setup();
    const originals = await writeEntries(contentDir, 2);
    const client = fx.client({ rateLimitRetries: 1 });
    await client.getWorkspace(); // warm up the budget's view of the limit
    fx.emu.faults.rateLimitBurst = 0;
    fx.emu.events.on('request', (rec) => {
      if (rec.method === 'POST') fx.emu.faults.rateLimitBurst = 1; // every POST attempt refused
    });
    const r = await push({ client, contentDir, stateDir, concurrency: 1 });
    expect(r.pushed).toEqual([]);
    expect(r.pending.map((p) => p.reason)).toEqual([expect.stringContaining('429 Too Many Requests'), expect.stringContaining('not sent: ')]);
    expect(fx.store.listEntries(fx.ws)).toEqual([]);
    expect((await Journal.open(stateDir)).list()).toEqual([]);
    for (const [rel, text] of originals) expect(await readFile(join(contentDir, rel), 'utf8')).toBe(text);
  });

  it('the day cannot cover all: what fits is sent oldest first, the rest deferred', async () => {
    await setup();
    await writeEntries(contentDir, 6);
    const minute = Math.floor(Date.now() / 60_000);
    // 1,440 a day, 1,433 used: 7 left. 2 to plan, 1 kept for reconciliation: 4 POSTs fit.
    const budget = new RateBudget({ ledger: [[minute, 1433]] });
    const r = await push({ client: fx.client({ budget }), contentDir, stateDir });
    expect(r.pushed.map((p) => p.slug)).toEqual(['entry-1-things', 'entry-2-things', 'entry-3-things', 'entry-4-things']);
    expect(r.deferred.map((p) => p.slug)).toEqual(['entry-5-things', 'entry-6-things']);
    expect(r.pending.map((p) => p.reason)).toEqual([expect.stringContaining('deferred to the next run'), expect.stringContaining('deferred to the next run')]);
    expect(budget.dayRemaining()).toBe(1);
  });
});

describe('the lock', () => {
  it('a second push on the same content directory fails fast, naming the holder', async () => {
    await setup();
    await writeEntries(contentDir, 1);
    await fakeLock({ pid: process.ppid, host: hostname() }); // a living process
    const held = JSON.parse(await readFile(join(stateDir, 'lock.json'), 'utf8')) as { pid: number; startedAt: string };
    const error = await push({ client: fx.client(), contentDir, stateDir }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_LOCKED' });
    expect((error as Error).message).toContain(`pid ${held.pid} on host "${hostname()}", running \`push\` since ${held.startedAt}`);
    expect(fx.emu.log).toEqual([]); // nothing sent, not even a read
  });

  it('a stale lock whose holder died on this host is taken over at once, and said so', async () => {
    await setup();
    const originals = await writeEntries(contentDir, 1);
    await fakeLock({ pid: 2 ** 22 + 12345, host: hostname() }); // no such process
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.notes.join('\n')).toContain('took over a stale lock left by pid 4206649');
    await expectEachOnceAndIntact(fx, contentDir, originals);
  });

  it('a lock from another host is taken over only once it is stale (not refreshed for 30 s)', async () => {
    await setup();
    await writeEntries(contentDir, 1);
    await fakeLock({ pid: 1, host: 'ci-runner-7' });
    await expect(push({ client: fx.client(), contentDir, stateDir })).rejects.toMatchObject({ code: 'E_LOCKED' });
    const old = new Date(Date.now() - 31_000);
    await utimes(join(stateDir, 'lock'), old, old);
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed).toHaveLength(1);
    expect(r.notes.join('\n')).toContain('pid 1 on host "ci-runner-7"');
  });

  /** A lock directory and holder file as another process leaves them. */
  async function fakeLock(holder: { pid: number; host: string }) {
    await mkdir(join(stateDir, 'lock'), { recursive: true });
    const { ino } = await stat(join(stateDir, 'lock'));
    await writeFile(join(stateDir, 'lock.json'), JSON.stringify({ ...holder, startedAt: '2026-01-01T00:00:00.000Z', command: 'push', ino }));
  }

  it('is taken once per process (a second take fails fast) and released at the end', async () => {
    await setup();
    const lock = await acquireLock(stateDir, 'sync');
    await expect(acquireLock(stateDir, 'push')).rejects.toMatchObject({ code: 'E_LOCKED' });
    await expect(readFile(join(stateDir, 'lock.json'), 'utf8')).resolves.toContain('"command": "sync"');
    await lock.release();
    await expect(readFile(join(stateDir, 'lock.json'))).rejects.toThrow();
  });
});
