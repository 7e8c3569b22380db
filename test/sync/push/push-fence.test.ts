// The lease and fencing, through push() against the emulator over HTTP (the real-process
// races are in test/e2e/sync/push-race.test.ts and push-sigstop.test.ts):
// - fencing on one host: a lock whose holder lives is never taken over on time; a journal
//   record in `sending` whose sender lives is never sent again; a push whose lock was
//   taken over sends nothing more, including what it had queued;
// - the push lease on the git remote: held while sending, released after; waited for when
//   another holds it, taken over once not renewed for its time to live; a push that lost it
//   sends nothing more (the remote and the lifetime rules: test/sync/push/push-lease.test.ts).
import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../../src/sync/recovery/journal.js';
import { LEASE_REF, readLease, writeLease, type LeaseRecord } from '../../../src/sync/push/lease-ref.js';
import { thisProcess } from '../../../src/core/process-alive.js';
import { push } from '../../../src/sync/push/push.js';
import { tempDir } from '../../helpers/process/cli.js';
import { makeClones, type Clone } from '../../helpers/sync/clones.js';
import { expectEachOnceAndIntact, pushSetup, writeEntries, type PushSetup } from '../../helpers/sync/entries.js';

let s: PushSetup | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  await s?.close();
  s = undefined;
  for (const c of cleanups.splice(0)) await c();
});

/** A lock directory and holder file as a living process of this machine leaves them (the test runner's parent). */
async function livingLock(stateDir: string): Promise<void> {
  await mkdir(join(stateDir, 'lock'), { recursive: true });
  const { ino } = await stat(join(stateDir, 'lock'));
  await writeFile(join(stateDir, 'lock.json'), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', command: 'push', ino, token: 'other' }));
}

describe('fencing on one host', () => {
  it('a lock whose holder lives on this machine is not taken over, however long unrefreshed (a stopped process)', async () => {
    s = await pushSetup();
    await writeEntries(s.contentDir, 1);
    await livingLock(s.stateDir);
    const old = new Date(Date.now() - 70_000);
    await utimes(join(s.stateDir, 'lock'), old, old);
    await expect(push({ client: s.fx.client(), contentDir: s.contentDir, stateDir: s.stateDir })).rejects.toMatchObject({ code: 'E_LOCKED' });
    expect(s.fx.emu.log).toEqual([]);
  });

  it('a journal record in `sending` whose sender lives is not sent again, even past its in-doubt time', async () => {
    s = await pushSetup();
    const originals = await writeEntries(s.contentDir, 2);
    const [rel] = [...originals.keys()];
    const journal = await Journal.open(s.stateDir);
    // The sender: the test runner's parent, alive on this machine (its start time as /proc has it).
    const sender = { ...thisProcess(), pid: process.ppid };
    delete sender.procStart;
    await journal.put({ file: rel!, slug: 'entry-1-things', title: 'Entry 1: things', startedAt: '2026-01-01T00:00:00.000Z', inDoubtUntil: '2026-01-01T00:01:00.000Z', state: 'sending', sender });
    const r = await push({ client: s.fx.client(), contentDir: s.contentDir, stateDir: s.stateDir, lease: false });
    expect(r.pushed.map((p) => p.file)).toEqual([[...originals.keys()][1]]);
    expect(r.pending.map((p) => p.file)).toEqual([rel]);
    expect(r.pending[0]!.reason).toContain(`by pid ${process.ppid}, which still runs on this machine`);
    expect(s.posts().map((p) => p.slug)).toEqual(['entry-2-things']);
    expect((await Journal.open(s.stateDir)).list().map((x) => x.file)).toEqual([rel]);
  });

  it('a push whose lock was taken over sends nothing more, including what it had queued', async () => {
    s = await pushSetup();
    await writeEntries(s.contentDir, 3);
    const stateDir = s.stateDir;
    // Another process takes the lock over while the first POST is in flight.
    s.fx.emu.events.on('request', (rec: { method: string }) => {
      if (rec.method === 'POST') void readFile(join(stateDir, 'lock.json'), 'utf8').then((t) => writeFile(join(stateDir, 'lock.json'), JSON.stringify({ ...JSON.parse(t), pid: process.ppid, token: 'taken-over' })));
    });
    let resume!: () => void;
    s.fx.emu.events.on('request', (rec: { method: string }) => {
      if (rec.method === 'POST' && !s!.fx.emu.faults.pause) s!.fx.emu.faults.pause = new Promise<void>((r) => (resume = r));
    });
    const pushing = push({ client: s.fx.client(), contentDir: s.contentDir, stateDir, concurrency: 1, lease: false });
    await vi.waitFor(async () => expect(JSON.parse(await readFile(join(stateDir, 'lock.json'), 'utf8'))).toMatchObject({ token: 'taken-over' }));
    resume();
    const r = await pushing;
    expect(r.pushed).toHaveLength(1);
    expect(r.pending.map((p) => p.reason)).toEqual([expect.stringContaining('the lock of this content directory was lost'), expect.stringContaining('the lock of this content directory was lost')]);
    expect(s.posts()).toHaveLength(1);
    expect(s.fx.store.listEntries(s.fx.ws)).toHaveLength(1);
  });
});

describe('the push lease on the git remote', () => {
  async function clone(): Promise<{ c: Clone; origin: string; stateDir: string }> {
    const { dir, cleanup } = await tempDir('changelog-sync-lease-');
    cleanups.push(cleanup);
    const { clones, origin } = await makeClones(dir, 1, {});
    return { c: clones[0]!, origin, stateDir: join(clones[0]!.dir, '.changelog') };
  }
  const lsRemote = (cwd: string) => execFileSync('git', ['ls-remote', 'origin', LEASE_REF], { cwd, encoding: 'utf8' }).trim();

  it('is held on origin while the POSTs are sent, and removed at the end', async () => {
    s = await pushSetup();
    const { c, stateDir } = await clone();
    const originals = await writeEntries(c.contentDir, 2);
    const during: string[] = [];
    s.fx.emu.events.on('request', (rec: { method: string }) => {
      if (rec.method === 'POST') during.push(lsRemote(c.dir));
    });
    const r = await push({ client: s.fx.client(), contentDir: c.contentDir, stateDir });
    expect(during).toHaveLength(2);
    for (const d of during) expect(d).toMatch(new RegExp(`^[0-9a-f]{40}\\s${LEASE_REF}$`));
    expect(lsRemote(c.dir)).toBe('');
    expect(r.notes).toEqual([]);
    await expectEachOnceAndIntact(s.fx, c.contentDir, originals);
  });

  it('held by a living process elsewhere: waited for, taken over once not renewed for its time to live, and said so', async () => {
    s = await pushSetup();
    const { c, stateDir } = await clone();
    const originals = await writeEntries(c.contentDir, 1);
    const holder: LeaseRecord = { pid: 4242, host: 'writers-laptop', token: 'theirs', command: 'push', dir: '/elsewhere/content', takenAt: '2026-01-01T00:00:00.000Z', renewedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2099-01-01T00:00:00.000Z', ttlMs: 1500 };
    const remote = { cwd: c.dir, remote: 'origin', ref: LEASE_REF, timeoutMs: 10_000, env: process.env };
    expect(await writeLease(remote, holder, undefined)).not.toBe('lost');
    const progress: string[] = [];
    const r = await push({ client: s.fx.client(), contentDir: c.contentDir, stateDir, lease: { ttlMs: 1500 }, inDoubtMs: 10, onProgress: (m) => progress.push(m) });
    expect(progress[0]).toBe('waiting for the push lease of this repository, held by pid 4242 on host "writers-laptop", running `push` since 2026-01-01T00:00:00.000Z');
    expect(r.notes).toEqual(['took over the push lease from pid 4242 on host "writers-laptop", running `push` since 2026-01-01T00:00:00.000Z: not renewed for 1.5 s, the lifetime it recorded']);
    await expectEachOnceAndIntact(s.fx, c.contentDir, originals);
  });

  it('a push that lost its lease (not renewed in time, taken over) sends nothing more', async () => {
    s = await pushSetup();
    const { c, stateDir } = await clone();
    await writeEntries(c.contentDir, 3);
    vi.useFakeTimers({ toFake: ['Date'] });
    const remote = { cwd: c.dir, remote: 'origin', ref: LEASE_REF, timeoutMs: 10_000, env: process.env };
    let took: Promise<unknown> | undefined;
    s.fx.emu.events.on('request', (rec: { method: string }) => {
      if (rec.method !== 'POST' || took) return;
      // This process is cut off for 45 s (Date jumps), and another clone takes the lease over.
      vi.setSystemTime(Date.now() + 45_000);
      took = readLease(remote).then((seen) => writeLease(remote, { ...(seen!.record as LeaseRecord), pid: 4242, host: 'ci-runner', token: 'taker' }, seen!.oid));
      s!.fx.emu.faults.pause = took;
    });
    const r = await push({ client: s.fx.client(), contentDir: c.contentDir, stateDir, concurrency: 1, lease: { ttlMs: 60_000 } });
    expect(await took).not.toBe('lost');
    expect(r.pushed).toHaveLength(1);
    expect(r.pending.map((p) => p.reason)).toEqual([expect.stringContaining('the push lease was lost while pushing: another process took it over'), expect.stringContaining('the push lease was lost')]);
    expect(s.posts()).toHaveLength(1);
    // Not released by the loser: the taker's lease stays.
    expect((await readLease(remote))?.record?.token).toBe('taker');
  });
});
