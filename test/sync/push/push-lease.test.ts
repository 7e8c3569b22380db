// The push lease is one rule for every machine (docs/sync.md#the-push-lease), against real git
// repositories (a bare origin and a clone, test/helpers/sync/clones.ts):
// - a clone takes a lease over only once it saw it unrenewed for the lifetime the HOLDER
//   recorded, not its own CHANGELOG_LEASE_TTL_MS; a record beyond the cap (30 minutes) is
//   refused with E_LEASE and the fix; (the clock is faked: the wait moves it, git runs for real)
// - after a takeover it waits the longer of the in-doubt time the holder recorded and its own
//   (60 s for a record of an earlier version without one); beyond the cap, E_LEASE;
// - a holder reads the ref before every POST and stops sending once it is not its own,
//   however young its last renewal;
// - an `origin` that exists but cannot be read refuses the push (E_LEASE naming the remote and
//   the fix) unless the lease is off; only a repository without a remote is per directory.
// The real-process races are in test/e2e/sync/push-lease-rule.test.ts.
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/core/config.js';
import { ChangelogSyncError } from '../../../src/core/errors.js';
import { LEASE_REF, readLease, readLeaseOid, writeLease, type LeaseRecord, type LeaseRemote } from '../../../src/sync/push/lease-ref.js';
import { takePushLease } from '../../../src/sync/push/push-lease.js';
import { push } from '../../../src/sync/push/push.js';
import { tempDir } from '../../helpers/process/cli.js';
import { git, makeClones, type Clone } from '../../helpers/sync/clones.js';
import { expectEachOnceAndIntact, pushSetup, writeEntries, type PushSetup } from '../../helpers/sync/entries.js';

let s: PushSetup | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  await s?.close();
  s = undefined;
  for (const c of cleanups.splice(0)) await c();
});

async function clone(): Promise<{ c: Clone; origin: string; stateDir: string; remote: LeaseRemote }> {
  const { dir, cleanup } = await tempDir('changelog-sync-lease-rule-');
  cleanups.push(cleanup);
  const { clones, origin } = await makeClones(dir, 1, {});
  const c = clones[0]!;
  return { c, origin, stateDir: join(c.dir, '.changelog'), remote: { cwd: c.dir, remote: 'origin', ref: LEASE_REF, timeoutMs: 10_000, env: process.env } };
}

/** A lease of a living process on another machine, recording `ttlMs`. */
const elsewhere = (ttlMs: number): LeaseRecord => ({
  pid: 4242,
  host: 'writers-laptop',
  token: 'theirs',
  command: 'push',
  dir: '/elsewhere/content',
  takenAt: '2026-01-01T00:00:00.000Z',
  renewedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2099-01-01T00:00:00.000Z',
  ttlMs,
});

/** A sleep that moves the faked clock instead of waiting. */
const movingClock = (ms: number): Promise<void> => {
  vi.setSystemTime(Date.now() + ms);
  return Promise.resolve();
};

/** What `p` rejected with (fails when it resolved). */
async function rejection(p: Promise<unknown>): Promise<ChangelogSyncError> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChangelogSyncError);
  return err as ChangelogSyncError;
}

describe('taking a lease over', () => {
  it('waits the lifetime the holder recorded (120 s), not its own (1.5 s), and says so', async () => {
    const { c, remote } = await clone();
    expect(await writeLease(remote, elsewhere(120_000), undefined)).not.toBe('lost');
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    let tookAt = 0;
    const progress: string[] = [];
    const taken = await takePushLease({
      dir: c.contentDir,
      ttlMs: 1500,
      inDoubtMs: 10,
      // Shorter than the holder's lifetime: a lease that stays unrenewed is waited for all of it.
      maxWaitMs: 60_000,
      command: 'push',
      sleep: movingClock,
      onProgress: (m) => {
        progress.push(m);
        if (m.startsWith('took over')) tookAt = Date.now();
      },
    });
    expect('lease' in taken).toBe(true);
    expect(tookAt - start).toBeGreaterThanOrEqual(120_000);
    expect(progress).toContain('took over the push lease from pid 4242 on host "writers-laptop", running `push` since 2026-01-01T00:00:00.000Z: not renewed for 120 s, the lifetime it recorded');
    // Its own record carries its own lifetime, for the next taker.
    expect((await readLease(remote))?.record?.ttlMs).toBe(1500);
    if ('lease' in taken) await taken.lease.release();
  }, 60_000);

  it("waits the holder's recorded in-doubt time (120 s) after the takeover, not its own (10 ms), and records its own", async () => {
    const { c, remote } = await clone();
    expect(await writeLease(remote, { ...elsewhere(1000), inDoubtMs: 120_000 }, undefined)).not.toBe('lost');
    vi.useFakeTimers({ toFake: ['Date'] });
    let tookAt = 0;
    const progress: string[] = [];
    const taken = await takePushLease({
      dir: c.contentDir,
      ttlMs: 1500,
      inDoubtMs: 10,
      command: 'push',
      sleep: movingClock,
      onProgress: (m) => {
        progress.push(m);
        if (m.startsWith('took over')) tookAt = Date.now();
      },
    });
    expect('lease' in taken).toBe(true);
    // The listing is read only once the holder's POSTs are settled by its own window.
    expect(Date.now() - tookAt).toBeGreaterThanOrEqual(120_000);
    expect(progress).toContain('waiting 120 s before reading the listing: a POST of the previous holder may still be processed by the service');
    expect((await readLease(remote))?.record?.inDoubtMs).toBe(10);
    if ('lease' in taken) await taken.lease.release();
  }, 60_000);

  it('a record without an in-doubt time (an earlier version) is waited for 60 s, the default; a longer own time wins', async () => {
    const { c, remote } = await clone();
    for (const [own, expected] of [
      [10, 60_000],
      [90_000, 90_000],
    ] as const) {
      expect(await writeLease(remote, elsewhere(1000), (await readLease(remote))?.oid)).not.toBe('lost');
      vi.useFakeTimers({ toFake: ['Date'] });
      let tookAt = 0;
      const taken = await takePushLease({
        dir: c.contentDir,
        ttlMs: 1500,
        inDoubtMs: own,
        command: 'push',
        sleep: movingClock,
        onProgress: (m) => {
          if (m.startsWith('took over')) tookAt = Date.now();
        },
      });
      const waited = Date.now() - tookAt;
      vi.useRealTimers();
      expect(waited).toBeGreaterThanOrEqual(expected);
      expect(waited).toBeLessThan(expected + 60_000);
      if ('lease' in taken) await taken.lease.release();
    }
  }, 60_000);

  it('a holder recording an in-doubt time of 31 minutes, beyond the cap: refused with E_LEASE and the fix, the lease left as it is', async () => {
    const { c, remote } = await clone();
    expect(await writeLease(remote, { ...elsewhere(1000), inDoubtMs: 31 * 60_000 }, undefined)).not.toBe('lost');
    const before = (await readLease(remote))!.oid;
    vi.useFakeTimers({ toFake: ['Date'] });
    const err = await rejection(takePushLease({ dir: c.contentDir, ttlMs: 1500, inDoubtMs: 10, command: 'push', sleep: movingClock }));
    expect(err.code).toBe('E_LEASE');
    expect(err.message).toContain('the push lease on the git remote "origin" records an in-doubt time of 1860 s (held by pid 4242 on host "writers-laptop"');
    expect(err.hint).toContain('CHANGELOG_TIMEOUT_MS must be at most 900000');
    expect((await readLease(remote))!.oid).toBe(before);
  }, 60_000);

  it('a holder recording 31 minutes, beyond the cap: refused with E_LEASE and the fix, the lease left as it is', async () => {
    const { c, remote } = await clone();
    expect(await writeLease(remote, elsewhere(31 * 60_000), undefined)).not.toBe('lost');
    const before = (await readLease(remote))!.oid;
    vi.useFakeTimers({ toFake: ['Date'] });
    const err = await rejection(takePushLease({ dir: c.contentDir, ttlMs: 1500, inDoubtMs: 10, command: 'push', sleep: movingClock }));
    expect(err.code).toBe('E_LEASE');
    expect(err.message).toContain('the push lease on the git remote "origin" records a lifetime of 1860 s (held by pid 4242 on host "writers-laptop"');
    expect(err.hint).toContain('git push origin :refs/changelog-sync/push-lease');
    expect((await readLease(remote))!.oid).toBe(before);
  }, 60_000);

  it("this machine's own lifetime is capped too: CHANGELOG_LEASE_TTL_MS over 30 minutes is a configuration error", async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    expect(loadConfig(dir, { CHANGELOG_LEASE_TTL_MS: '1800000' }).leaseTtlMs).toBe(1_800_000);
    let err: unknown;
    try {
      loadConfig(dir, { CHANGELOG_LEASE_TTL_MS: '1800001' });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_CONFIG', field: 'CHANGELOG_LEASE_TTL_MS' });
    expect((err as ChangelogSyncError).message).toBe('CHANGELOG_LEASE_TTL_MS must be at most 1800000 (30 minutes), got 1800001: other clones refuse a longer push lease');
  });
});

describe('a holder checks the ref before every POST', () => {
  it('taken over while its first POST is in flight, its renewal young: it sends nothing more, the rest pending', async () => {
    s = await pushSetup();
    const { c, stateDir, remote } = await clone();
    await writeEntries(c.contentDir, 3);
    let took: Promise<unknown> | undefined;
    s.fx.emu.events.on('request', (rec: { method: string }) => {
      if (rec.method !== 'POST' || took) return;
      // Another clone writes its own lease (a taker that judged by another lifetime), no clock moved.
      took = readLease(remote).then((seen) => writeLease(remote, { ...(seen!.record as LeaseRecord), pid: 4242, host: 'ci-runner', token: 'taker' }, seen!.oid));
      s!.fx.emu.faults.pause = took;
    });
    const r = await push({ client: s.fx.client(), contentDir: c.contentDir, stateDir, concurrency: 1, lease: { ttlMs: 600_000 } });
    expect(await took).not.toBe('lost');
    expect(s.posts()).toHaveLength(1);
    expect(r.pushed).toHaveLength(1);
    expect(r.pending.map((p) => p.reason)).toEqual([
      'not sent: the push lease was lost while pushing: another process took it over',
      'not sent: the push lease was lost while pushing: another process took it over',
    ]);
    expect((await readLease(remote))?.record?.token).toBe('taker');
  });
});

describe('the remote the lease lives on', () => {
  it('an origin that exists but cannot be read: E_LEASE naming it and the fix, nothing sent; --no-lease goes on, per directory', async () => {
    s = await pushSetup();
    const { c, origin, stateDir } = await clone();
    await rename(origin, `${origin}.gone`);
    const originals = await writeEntries(c.contentDir, 1);
    const err = await rejection(push({ client: s.fx.client(), contentDir: c.contentDir, stateDir }));
    expect(err.code).toBe('E_LEASE');
    expect(err.message).toMatch(/^the git remote "origin" cannot be read \(git ls-remote origin failed: fatal: '.*origin.git' does not appear to be a git repository\), so the push lease .* nothing was sent$/);
    expect(err.hint).toContain('run again with --no-lease');
    expect(s.posts()).toEqual([]);
    const r = await push({ client: s.fx.client(), contentDir: c.contentDir, stateDir, lease: false });
    expect(r.notes).toEqual([]);
    await expectEachOnceAndIntact(s.fx, c.contentDir, originals);
  });

  it('an origin that never answers: git is stopped at the time limit with an error naming it, never a hang', async () => {
    const { c, remote } = await clone();
    // git runs a local remote's upload-pack through the shell: this one waits for input git
    // never sends (and ends once git is gone); its stderr is kept off git's, which is ours.
    git(c.dir, 'config', 'remote.origin.uploadpack', 'exec 2>/dev/null; read x');
    await expect(readLeaseOid({ ...remote, timeoutMs: 500 })).rejects.toThrow(/^git ls-remote took longer than 0\.5 s$/);
  });

  it('a repository without origin, or no repository: per directory, and said so', async () => {
    s = await pushSetup();
    const { c, stateDir } = await clone();
    git(c.dir, 'remote', 'remove', 'origin');
    const originals = await writeEntries(c.contentDir, 1);
    const r = await push({ client: s.fx.client(), contentDir: c.contentDir, stateDir });
    expect(r.notes).toEqual([expect.stringContaining('at most once per directory only: the git repository has no remote "origin", so no push lease is shared with other clones')]);
    await expectEachOnceAndIntact(s.fx, c.contentDir, originals);
    const plain = await pushSetup();
    try {
      await writeEntries(plain.contentDir, 1);
      const p = await push({ client: plain.fx.client(), contentDir: plain.contentDir, stateDir: plain.stateDir });
      expect(p.notes).toEqual([expect.stringContaining('at most once per directory only: the project is not in a git repository')]);
    } finally {
      await plain.close();
    }
  });
});
