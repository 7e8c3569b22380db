// The lease and fencing: a push suspended with SIGSTOP (Ctrl-Z, a
// closed laptop lid) while its POST is in flight at a service slow to commit it. Meanwhile
// a second push in the same directory, its lock not refreshed for 70 s, and a push in
// another clone; then SIGCONT. Before: the second took the "stale" lock over although its
// holder lived, and the other clone, knowing nothing of the POST in flight, sent the file
// again: two entries. Now: the second fails with E_LOCKED (the holder lives on this
// machine); the other clone takes the lease over once it was not renewed for its time to
// live, waits the in-doubt time, and adopts the entry the stopped push created; the
// stopped push resumes, settles its POST and sends nothing more. One entry.
//
// Real processes; every step waits on an event: the emulator's stalled create (the POST in
// flight), a process's exit or output line, never a fixed sleep.
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { tempDir } from '../../helpers/process/cli.js';
import { addEntries, git, makeClones, type Clone } from '../../helpers/sync/clones.js';

describe('a push stopped with SIGSTOP while its POST is in flight', () => {
  let emu: RunningEmulator;
  let store: EmulatorStore;
  let ws: EmulatorWorkspace;
  let root = '';
  let cleanup: () => Promise<void>;
  let seed = '';
  let clones: Clone[] = [];
  /** Stalled creates: each resolves when the test ends its stall. */
  const stalls: Array<() => void> = [];
  let onStall: (() => void) | undefined;

  beforeAll(async () => {
    store = new EmulatorStore();
    ws = store.addWorkspace({ name: 'Suspended', tokens: ['stop-token'] });
    emu = await startEmulator({
      port: 0,
      store,
      limits: { perMinute: 600, windowMs: 1000 },
      // Every create is held before its commit until the test ends the stall.
      faults: { stallCreateEvery: 1 },
      sleep: () =>
        new Promise<void>((resolve) => {
          stalls.push(resolve);
          onStall?.();
        }),
    });
    ({ dir: root, cleanup } = await tempDir('changelog-sync-sigstop-'));
    const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'stop-token', CHANGELOG_RATE_WINDOW_MS: '100', CHANGELOG_TIMEOUT_MS: '1500', CHANGELOG_LEASE_TTL_MS: '1500' };
    ({ seed, clones } = await makeClones(root, 2, env));
  });
  afterAll(async () => {
    for (const end of stalls) end();
    await emu.close();
    await cleanup?.();
  });

  const nextStall = () => new Promise<void>((resolve) => (onStall = resolve));
  /** Resolves with `line` once the process wrote it (stderr or stdout). */
  const output = (child: ReturnType<Clone['spawn']>['child'], text: string) =>
    new Promise<'output'>((resolve) => {
      let seen = '';
      const look = (d: Buffer) => {
        seen += d.toString();
        if (seen.includes(text)) resolve('output');
      };
      child.stderr!.on('data', look);
      child.stdout!.on('data', look);
    });

  it('a second push in the same directory is refused, one in another clone adopts: one entry', async () => {
    const [mine, other] = clones as [Clone, Clone];
    const [rel] = await addEntries(seed, [{ name: 'faster-exports', title: 'Faster exports', day: '2026-04-01' }]);
    for (const c of clones) git(c.dir, 'pull', '-q', '--ff-only', 'origin', 'main');

    // 1. The first push's POST reaches the service, which holds it; the push is stopped.
    const inFlight = nextStall();
    const first = mine.spawn(['push']);
    await inFlight;
    first.child.kill('SIGSTOP');
    try {
      // 2. A second push in the same directory, the lock not refreshed for 70 s (its holder is stopped).
      const old = new Date(Date.now() - 70_000);
      await utimes(join(mine.dir, '.changelog/lock'), old, old);
      const sentAgain = nextStall().then(() => 'sent again' as const);
      const second = mine.spawn(['push']);
      const secondOutcome = await Promise.race([second.done, sentAgain]);
      expect(secondOutcome, 'the second push in the same directory sent the file again').not.toBe('sent again');
      const refused = await second.done;
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain(`error E_LOCKED`);
      expect(refused.stderr).toContain(`pid ${first.child.pid} on host`);

      // 3. A push in another clone: it takes the lease over (not renewed: its holder is
      // stopped) or, without a lease, sends at once. The service then finishes the first POST.
      const third = other.spawn(['push']);
      const how = await Promise.race([output(third.child, 'took over the push lease'), nextStall().then(() => 'sent again' as const)]);
      for (const end of stalls.splice(0)) end();
      expect(how, 'the push in the other clone sent the file again').toBe('output');
      const adopted = await third.done;
      expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
      expect(adopted.stdout).toContain('adopted');
    } finally {
      // 4. The first resumes: its POST's answer (or its in-doubt lookup) settles the file.
      first.child.kill('SIGCONT');
    }
    const resumed = await first.done;
    for (const end of stalls.splice(0)) end();
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const entries = store.listEntries(ws);
    expect(entries.map((e) => e.title)).toEqual(['Faster exports']);
    expect(await mine.identifierOf(rel!)).toBe(entries[0]!.identifier);
    expect(await other.identifierOf(rel!)).toBe(entries[0]!.identifier);
    expect(emu.log.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
