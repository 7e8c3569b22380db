// Odd rate-limit answers, as a user meets them: push (the real CLI when its heap is bounded, else the
// command in the test's process as the CLI runs it, helpers/process/command.ts) against an emulator
// whose rate-limit answers are odd. A limit header of two billion with nothing remaining
// (memory stays flat, a note, the push goes on); 429s without a usable Retry-After (a minimum
// backoff, never a burst of retries); the daily limit answered with a short Retry-After
// (deferred, exit 4, after a few 429s, not a minute of them).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EmulatorOptions } from '../../../src/emulator/server.js';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { runCommand } from '../../helpers/process/command.js';
import { runCli } from '../../helpers/process/cli.js';
import { expectEachOnceAndIntact, writeEntries } from '../../helpers/sync/entries.js';
import { startProject, type Project } from '../../helpers/service/project.js';

vi.setConfig({ testTimeout: 60_000 });

/** The budget's window in these runs: its minimum backoff after a 429 is a sixtieth, 100 ms. */
const WINDOW_MS = 6000;

let p: Project;
/** Starts the test's emulator with these options, and its project. */
async function start(emulator: EmulatorOptions): Promise<void> {
  p = await startProject({ name: 'Limits', token: 'limits-token', emulator, env: { CHANGELOG_RATE_WINDOW_MS: String(WINDOW_MS) } });
}
afterEach(async () => p.close());

const refused = () => p.emu.log.filter((r) => r.status === 429);

describe('rate-limit headers out of bounds', () => {
  it('x-ratelimit-limit: 2000000000 with remaining 0: ignored with a note, memory flat, every file pushed', async () => {
    await start({ faults: { rateLimitLimitHeader: '2000000000', rateLimitRemainingHeader: '0' } });
    const originals = await writeEntries(p.content, 3);
    // A heap of 64 MB: a window sized by the header (two billion slots) cannot fit in it.
    const r = await runCli(['--json', 'push'], { cwd: p.dir, env: { ...p.env, CHANGELOG_RATE_WINDOW_MS: '1000', NODE_OPTIONS: '--max-old-space-size=64' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: GET ' + p.emu.url + '/api/workspace: 200: x-ratelimit-limit "2000000000" is not a whole number from 1 to 10,000; ignored (the limit stays 60 a window)');
    // Said once per header, not once per response.
    expect(r.stderr.split('x-ratelimit-limit "2000000000"').length - 1).toBe(1);
    expect((JSON.parse(r.stdout) as { pushed: unknown[] }).pushed).toHaveLength(3);
    await expectEachOnceAndIntact(p, p.content, originals);
  });

  it('a negative or fractional count is ignored too: the window is not taken as spent', async () => {
    await start({ faults: { rateLimitLimitHeader: '60.5', rateLimitRemainingHeader: '-7' } });
    await writeEntries(p.content, 2);
    const r = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: p.dir, env: p.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('x-ratelimit-limit "60.5" is not a whole number from 1 to 10,000; ignored');
    expect(r.stderr).toContain('x-ratelimit-remaining "-7" is not a whole number from 0 to the limit (60); ignored');
    expect(refused()).toEqual([]);
  });
});

describe('429 with Retry-After: 0', () => {
  it('the next request waits at least the minimum backoff, never at once', async () => {
    await start({ faults: { rateLimitBurst: 3, rateLimitBurstRetryAfter: 0 } });
    const originals = await writeEntries(p.content, 1);
    const r = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: p.dir, env: p.env });
    expect(r.code, r.stderr).toBe(0);
    expect(refused()).toHaveLength(3);
    // The request after each 429 arrived at least the minimum backoff (WINDOW_MS / 60) later.
    for (const no of refused()) {
      const next = p.emu.log[p.emu.log.indexOf(no) + 1]!;
      expect(next.at - no.at, `after the 429 at ${no.at}`).toBeGreaterThanOrEqual(WINDOW_MS / 60);
    }
    await expectEachOnceAndIntact(p, p.content, originals);
  });
});

describe('the daily limit answered with a short Retry-After', () => {
  it('is taken for the day after four 429s in a row: the rest deferred, exit 4, no more requests', async () => {
    // 3 requests a day: the workspace and the listing, one POST; then 429 "Retry-After: 1" for the day.
    await start({ limits: { perDay: 3 }, faults: { dayLimitRetryAfter: 1 } });
    await writeEntries(p.content, 3);
    const r = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: p.dir, env: p.env, json: true });
    expect(r.code, r.stderr).toBe(4);
    const result = JSON.parse(r.stdout) as { pushed: unknown[]; deferred: Array<{ file: string }>; pending: Array<{ reason: string }> };
    expect(result.pushed).toHaveLength(1);
    expect(result.deferred).toHaveLength(2);
    expect(result.pending.map((p) => p.reason)).toEqual([
      'deferred to the next run: the service answered 429 4 times in a row, each time after waiting as it asked: taken as its daily limit',
      'deferred to the next run: the service answered 429 4 times in a row, each time after waiting as it asked: taken as its daily limit',
    ]);
    // Four strikes, each answered to the two POSTs in flight together: not a minute of retries.
    expect(refused().length).toBeLessThanOrEqual(4 * 2);
    expect(p.store.listEntries(p.ws)).toHaveLength(1);
  });
});
