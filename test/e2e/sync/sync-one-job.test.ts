// A sync is one job. The real CLI against the real emulator over HTTP on
// port 0:
// - `sync --skip-build` that pulls and pushes sends one workspace GET and one listing (a
//   project without a git remote: the lock alone fences the push);
// - in a clone of a shared remote, the push takes the lease across clones after the pull's
//   listing, so it lists once more (and only that): another clone may have created an entry
//   in between (docs/sync.md, "A sync is one job");
// - the lock is held from the pull through the push: a sync stopped at the failpoint between
//   the stages (`sync:after-pull`, CHANGELOG_FAILPOINT_STOP) keeps it, and a `pull` and a
//   `push` started there are refused with E_LOCKED naming it; resumed, it pushes, once.
//
// Every step waits on an event (an exit, the process's stopped state), never on time.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { runCli, spawnCli, tempDir } from '../../helpers/process/cli.js';
import { addEntries, git, makeClones } from '../../helpers/sync/clones.js';
import { writeEntry } from '../../helpers/sync/entries.js';

let emu: RunningEmulator;
let store: EmulatorStore;
let ws: EmulatorWorkspace;
let root = '';
let cleanup: () => Promise<void>;
let env: Record<string, string>;

beforeAll(async () => {
  store = new EmulatorStore();
  ws = store.addWorkspace({ name: 'One job', tokens: ['job-token'] });
  store.insertEntry(ws, { title: 'From the service', slug: 'from-the-service', publish_at: '2026-03-01', content: '<p>Remote.</p>' });
  emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 } });
  ({ dir: root, cleanup } = await tempDir('changelog-sync-one-job-'));
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'job-token', CHANGELOG_RATE_WINDOW_MS: '100' };
});
afterAll(async () => {
  await emu.close();
  await cleanup?.();
});

/** The API requests since `from` in the emulator's log, as `METHOD /path`, counted. */
function requestsSince(from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of emu.log.slice(from)) {
    if (!r.path.startsWith('/api/')) continue;
    const key = `${r.method} ${r.path.split('?')[0]}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Resolves once the process is stopped (state `T` in /proc): it reached the failpoint. */
async function stopped(pid: number, exited: Promise<unknown>): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // The state is the field after the command name, which is in parentheses.
    if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T') return;
    if (done) throw new Error('the sync ended before its failpoint');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const entry = (title: string, day: string) => `---\ntitle: ${title}\npublish_at: ${day}\nis_published: true\n---\n\nWhat changed: ${title}.\n`;

describe('a sync is one job', () => {
  it('a sync that pulls and pushes reads the workspace once and the listing once', async () => {
    const dir = join(root, 'plain');
    await writeEntry(join(dir, 'content'), '2026-03-02-written-here', entry('Written here', '2026-03-02'));
    const from = emu.log.length;
    const r = await runCli(['sync', '--skip-build'], { cwd: dir, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('pushed 1');
    expect(requestsSince(from)).toEqual({ 'GET /api/workspace': 1, 'GET /api/entries': 1, 'GET /api/tags': 1, 'POST /api/entry': 1 });
  });

  it('in a clone of a shared remote, the push lists once more after taking the lease, and reads the workspace not again', async () => {
    const { seed, clones } = await makeClones(join(root, 'clones'), 1, env);
    await addEntries(seed, [{ name: 'from-a-clone', title: 'From a clone', day: '2026-03-03' }]);
    const [clone] = clones;
    git(clone!.dir, 'pull', '-q', '--ff-only', 'origin', 'main');
    const from = emu.log.length;
    const r = await clone!.run(['sync', '--skip-build']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('pushed 1');
    expect(requestsSince(from)).toEqual({ 'GET /api/workspace': 1, 'GET /api/entries': 2, 'GET /api/tags': 1, 'POST /api/entry': 1 });
  });

  it('holds the lock from the pull through the push: a pull and a push between the stages are refused', async () => {
    const dir = join(root, 'stopped');
    const rel = await writeEntry(join(dir, 'content'), '2026-03-04-held', entry('Held', '2026-03-04'));
    const sync = spawnCli(['sync', '--skip-build'], { cwd: dir, env: { ...env, CHANGELOG_FAILPOINT: 'sync:after-pull', CHANGELOG_FAILPOINT_STOP: '1' }, timeoutMs: 120_000 });
    const pid = sync.child.pid!;
    try {
      await stopped(pid, sync.done);
      for (const command of ['pull', 'push']) {
        const refused = await runCli([command], { cwd: dir, env });
        expect(refused.code, `${command}: ${refused.stdout}${refused.stderr}`).toBe(1);
        expect(refused.stderr).toContain('error E_LOCKED');
        expect(refused.stderr).toContain(`pid ${pid} on host`);
        expect(refused.stderr).toContain('running `sync`');
      }
      expect(store.listEntries(ws).map((e) => e.title)).not.toContain('Held');
    } finally {
      sync.child.kill('SIGCONT');
    }
    const resumed = await sync.done;
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('pushed 1');
    const held = store.listEntries(ws).filter((e) => e.title === 'Held');
    expect(held).toHaveLength(1);
    expect(await readFile(join(dir, 'content', rel), 'utf8')).toContain(`identifier: ${held[0]!.identifier}`);
  });
});
