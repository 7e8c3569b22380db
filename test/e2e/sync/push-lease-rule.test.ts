// The push lease is one rule for every machine, tested with real processes: two clones of
// one bare origin (test/helpers/sync/clones.ts), the compiled CLI, two emulators over HTTP that
// share one store (one service): clone A's creates are held until the test ends the stall,
// so that A is mid-push when clone B starts; B's answer at once.
//
// 1. Lifetimes that differ (A 600 s, B 1.5 s). Before, B took A's live lease over once it
//    was not renewed for B's own 1.5 s, and both sent: two entries per file. Now B waits
//    for A's recorded 600 s, which A renews, so B takes the lease only once A released it,
//    and adopts. When to let A go on is an event, not a sleep: B's exit (it sent, as before),
//    or a read of the lease by B made after its own lifetime and in-doubt time had passed
//    since its first read (B still waiting, as now; a B that took over reads it no more).
//    B's reads are seen through a `git` on its PATH that logs each `ls-remote`.
// 2. B's `origin` cannot be read: its URL points at a loopback port with nothing listening
//    (127.0.0.1:1, "connection refused": a git host that is down; chosen over a host name that
//    does not resolve, whose failure depends on the machine's resolver). Before, B noted "at
//    most once per directory only" and sent. Now B exits 1 naming the remote and the fix,
//    having sent nothing; then `push --no-lease` goes on, warned, and adopts what A created.
// 3. SIGTERM and SIGINT while A's POST is in flight: A sends no other POST, its POST settles
//    (journal cleared, identifier written), it releases the lease and exits 143 or 130; B,
//    started then with a lifetime of 600 s, takes the lease at once (no wait, no takeover).
//
// Every case ends with exactly one entry per file on the service.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { tempDir } from '../../helpers/process/cli.js';
import { addEntries, git, makeClones, type Clone } from '../../helpers/sync/clones.js';

const LEASE_REF = 'refs/changelog-sync/push-lease';
const FILES = 3;

interface Setup {
  store: EmulatorStore;
  ws: EmulatorWorkspace;
  /** A's service: every create held until {@link Setup.release}. */
  held: RunningEmulator;
  /** B's service: the same store, answered at once. */
  open: RunningEmulator;
  a: Clone;
  b: Clone;
  root: string;
  rels: string[];
  titles: string[];
  /** Resolves when the next create is held. */
  nextStall(): Promise<void>;
  /** Ends every held create, and holds none from then on. */
  release(): void;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(): Promise<Setup> {
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: 'Lease rule', tokens: ['lease-token'] });
  const stalls: Array<() => void> = [];
  let releasing = false;
  let onStall: (() => void) | undefined;
  const held = await startEmulator({
    port: 0,
    store,
    limits: { perMinute: 600, windowMs: 1000 },
    faults: { stallCreateEvery: 1 },
    sleep: () =>
      new Promise<void>((resolve) => {
        if (releasing) return resolve();
        stalls.push(resolve);
        onStall?.();
      }),
  });
  const open = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 } });
  const release = () => {
    releasing = true;
    for (const end of stalls.splice(0)) end();
  };
  const { dir: root, cleanup } = await tempDir('changelog-sync-lease-rule-');
  closers.push(cleanup, () => open.close(), () => held.close(), () => Promise.resolve(release()));
  const env = { CHANGELOG_TOKEN: 'lease-token', CHANGELOG_RATE_WINDOW_MS: '100' };
  const { seed, clones } = await makeClones(root, 2, env);
  const titles = Array.from({ length: FILES }, (_, i) => `Lease rule, change ${i + 1}`);
  const rels = await addEntries(
    seed,
    titles.map((title, i) => ({ name: `change-${i + 1}`, title, day: `2026-05-0${i + 1}` })),
  );
  for (const c of clones) git(c.dir, 'pull', '-q', '--ff-only', 'origin', 'main');
  // A sends one POST at a time: the one held is the only one in flight.
  await writeFile(join(clones[0]!.dir, 'changelog.config.json'), '{ "concurrency": 1 }\n');
  return { store, ws, held, open, a: clones[0]!, b: clones[1]!, root, rels, titles, nextStall: () => new Promise((resolve) => (onStall = resolve)), release };
}

/** Resolves once the process wrote `text` (stdout or stderr). */
function output(child: ReturnType<Clone['spawn']>['child'], text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    const look = (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(text)) resolve();
    };
    child.stderr!.on('data', look);
    child.stdout!.on('data', look);
  });
}

/** Exactly one entry per file on the service, each bound in both clones that pushed. */
async function expectOneEntryPerFile(s: Setup, pushed: Clone[]): Promise<void> {
  const entries = s.store.listEntries(s.ws);
  expect(entries.map((e) => e.title).sort()).toEqual([...s.titles].sort());
  for (const rel of s.rels) {
    const ids = await Promise.all(pushed.map((c) => c.identifierOf(rel)));
    expect(ids[0], rel).toBeTruthy();
    for (const id of ids) expect(id, rel).toBe(ids[0]);
  }
}

const leaseOnOrigin = (s: Setup) => git(join(s.root, 'seed'), 'ls-remote', 'origin', LEASE_REF).trim();

describe('the push lease across clones, with real processes', () => {
  it('lifetimes that differ (A 600 s, B 1.5 s): B waits for A to release, then adopts: one entry per file', async () => {
    const s = await setup();
    // B's git logs the time of each lease read (`git ls-remote`), then runs the real git.
    const bin = join(s.root, 'bin');
    const log = join(s.root, 'b-lease-reads.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    execFileSync('mkdir', ['-p', bin]);
    await writeFile(join(bin, 'git'), `#!/bin/sh\n[ "$1" = ls-remote ] && date +%s%3N >> '${log}'\nexec '${realGit}' "$@"\n`);
    await chmod(join(bin, 'git'), 0o755);
    await writeFile(log, '');
    const B_TTL = 1500;
    const B_TIMEOUT = 2000;

    const stalled = s.nextStall();
    const a = s.a.spawn(['push'], { CHANGELOG_BASE_URL: s.held.url, CHANGELOG_LEASE_TTL_MS: '600000', CHANGELOG_TIMEOUT_MS: '60000' });
    await stalled; // A holds the lease, its first POST held at the service
    const b = s.b.spawn(['push'], { CHANGELOG_BASE_URL: s.open.url, CHANGELOG_LEASE_TTL_MS: String(B_TTL), CHANGELOG_TIMEOUT_MS: String(B_TIMEOUT), PATH: `${bin}:${process.env.PATH ?? ''}` });
    await output(b.child, 'waiting for the push lease');
    // Past the point where B, judging by its own lifetime, took the lease over and waited the in-doubt time.
    let decided = false;
    const stillWaiting = new Promise<'still waiting'>((resolve) => {
      const look = async () => {
        const reads = (await readFile(log, 'utf8')).split('\n').filter(Boolean).map(Number);
        if (reads.length > 0 && reads.at(-1)! - reads[0]! > B_TTL + 2 * B_TIMEOUT + 1000) resolve('still waiting');
        else if (!decided) setTimeout(() => void look(), 100);
      };
      void look();
    });
    const first = await Promise.race([stillWaiting, b.done.then(() => 'B ended' as const)]);
    decided = true;
    s.release();
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(first, `B did not wait for A's lease:\n${rb.stdout}\n${rb.stderr}`).toBe('still waiting');
    expect(ra.code, ra.stdout + ra.stderr).toBe(0);
    expect(rb.code, rb.stdout + rb.stderr).toBe(0);
    expect(rb.stdout + rb.stderr).not.toContain('took over the push lease');
    expect(rb.stdout).toContain('adopted');
    await expectOneEntryPerFile(s, [s.a, s.b]);
    expect([...s.held.log, ...s.open.log].filter((r) => r.method === 'POST')).toHaveLength(FILES);
    expect(leaseOnOrigin(s)).toBe('');
  }, 120_000);

  it("B's origin cannot be read (a loopback port with nothing listening): B exits 1 naming the remote and the fix, sends nothing: one entry per file", async () => {
    const s = await setup();
    git(s.b.dir, 'remote', 'set-url', 'origin', 'http://127.0.0.1:1/origin.git');
    const stalled = s.nextStall();
    const a = s.a.spawn(['push'], { CHANGELOG_BASE_URL: s.held.url, CHANGELOG_TIMEOUT_MS: '60000' });
    await stalled;
    const rb = await s.b.run(['push'], { CHANGELOG_BASE_URL: s.open.url, CHANGELOG_TIMEOUT_MS: '2000' });
    s.release();
    const ra = await a.done;
    expect(rb.code, rb.stdout + rb.stderr).toBe(1);
    expect(rb.stderr).toContain('error E_LEASE: the git remote "origin" cannot be read (git ls-remote origin failed: fatal: unable to access');
    expect(rb.stderr).toMatch(/fix: make "origin" reachable .*; or, only if no other clone pushes to this workspace, run again with --no-lease/);
    expect(s.open.log.filter((r) => r.method === 'POST')).toEqual([]);
    expect(ra.code, ra.stdout + ra.stderr).toBe(0);
    await expectOneEntryPerFile(s, [s.a]);
    expect(s.held.log.filter((r) => r.method === 'POST')).toHaveLength(FILES);

    // The writer who knows no other clone pushes now: --no-lease, warned; A's entries adopted.
    const again = await s.b.run(['push', '--no-lease'], { CHANGELOG_BASE_URL: s.open.url, CHANGELOG_TIMEOUT_MS: '2000' });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stderr).toContain('--no-lease: no push lease is taken on the git remote, so the guarantee is at most once per directory only');
    expect(again.stdout).toContain('adopted');
    expect(s.open.log.filter((r) => r.method === 'POST')).toEqual([]);
    await expectOneEntryPerFile(s, [s.a, s.b]);
  }, 120_000);

  it.each(['SIGTERM', 'SIGINT'] as const)('%s while a POST is in flight: it settles, nothing more is sent, the lease is released; another clone takes it at once', async (signal) => {
    const s = await setup();
    const stalled = s.nextStall();
    const a = s.a.spawn(['push'], { CHANGELOG_BASE_URL: s.held.url, CHANGELOG_LEASE_TTL_MS: '600000', CHANGELOG_TIMEOUT_MS: '60000' });
    await stalled;
    const told = output(a.child, `${signal}: stopping`);
    a.child.kill(signal);
    await Promise.race([told, a.done]);
    s.release(); // the POST in flight is answered only now, after the signal
    const ra = await a.done;
    // The status a shell gives a process that signal ended: 128 + 15, 128 + 2.
    expect(ra.code, ra.stdout + ra.stderr).toBe(signal === 'SIGTERM' ? 143 : 130);
    expect(ra.stdout).toContain(`not sent: the run was told to stop (${signal})`);
    expect(s.held.log.filter((r) => r.method === 'POST')).toHaveLength(1);
    // The POST in flight settled: its identifier written back, its journal record gone.
    expect(await s.a.identifierOf(s.rels[0]!)).toBe(s.store.listEntries(s.ws)[0]!.identifier);
    const journal = await readFile(join(s.a.dir, '.changelog/journal.json'), 'utf8').catch(() => '{"records":[]}');
    expect(JSON.stringify(JSON.parse(journal))).not.toContain(s.rels[0]!);
    expect(leaseOnOrigin(s)).toBe('');

    // B, with a lifetime of its own of 600 s: it takes the lease at once, adopts A's entry, sends the rest.
    const rb = await s.b.run(['push'], { CHANGELOG_BASE_URL: s.open.url, CHANGELOG_LEASE_TTL_MS: '600000' });
    expect(rb.code, rb.stdout + rb.stderr).toBe(0);
    expect(rb.stdout + rb.stderr).not.toMatch(/waiting for the push lease|took over/);
    expect(s.open.log.filter((r) => r.method === 'POST')).toHaveLength(FILES - 1);
    expect(s.store.listEntries(s.ws).map((e) => e.title).sort()).toEqual([...s.titles].sort());
  }, 120_000);
});
