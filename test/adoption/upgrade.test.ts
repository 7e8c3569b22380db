// Upgrades as a team takes them (docs/sync.md, "State format and upgrades"): changelog-sync
// installed from a registry at version N, then N+1, then N again.
//
// The registry is the local one of test/helpers/registry/local-registry.ts (every package but
// changelog-sync comes through it from the registry npm is configured with). N is this tree
// packed at version 0.90.0. N+1 is NOT a real release: it is this tree packed at 0.91.0 with
// its state format raised by one by a test fixture that adds one made-up migration to the
// packed dist's format module (test/fixtures/state-format/next-format.ts: the journal's
// `version` becomes 2); everything else in it is this tree's code.
//
// In an empty git repository: `npm install changelog-sync@N`, the config and .gitignore
// written as `init` writes them, and `sync` against the emulator (the test's, in this process,
// for its request log) pulls the demo workspace and pushes one new file. Then the team
// upgrades (`npm install changelog-sync@N+1`, committed): the first sync migrates the state and
// sends nothing (no POST), and `git status` shows the migrated state files only; a second sync
// changes nothing. Then N again: it refuses the newer state, exit 1, naming both versions and
// the fix, with no request sent and not one byte of the project changed.
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeed } from '../../src/emulator/seed.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { withNextStateFormat } from '../fixtures/state-format/next-format.js';
import { tempDir } from '../helpers/process/cli.js';
import { packTool, runToEnd, startLocalRegistry, type Finished as Run, type LocalRegistry } from '../helpers/registry/local-registry.js';

const N = '0.90.0';
const NEXT = '0.91.0';

const run = runToEnd;

/** Every file of the project but .git and node_modules, by path, as a digest of its bytes. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const d of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const abs = join(d.parentPath, d.name);
    const rel = relative(dir, abs);
    if (/^(\.git|node_modules)(\/|$)/.test(rel)) continue;
    out[rel] = d.isFile() ? createHash('sha256').update(await readFile(abs)).digest('hex') : 'dir';
  }
  return out;
}

describe(`upgrade: changelog-sync ${N}, then ${NEXT} (one state format more), then ${N} again`, () => {
  let registry: LocalRegistry;
  let emu: RunningEmulator;
  let base: string;
  let cleanup: () => Promise<void>;
  let repo: string;
  let env: Record<string, string>;
  const npm = (...args: string[]): Promise<Run> => run('npm', args, repo, registry.env);
  const cli = (...args: string[]): Promise<Run> => run('npx', ['--no-install', 'changelog-sync', ...args], repo, env);
  const git = async (...args: string[]): Promise<string> => {
    const r = await run('git', args, repo, env);
    expect(r.code, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
  const posts = (): string[] => emu.log.filter((l) => l.method !== 'GET').map((l) => `${l.method} ${l.path}`);

  beforeAll(async () => {
    ({ dir: base, cleanup } = await tempDir('changelog-upgrade-'));
    registry = await startLocalRegistry();
    await registry.publish(await packTool({ version: N, outDir: join(base, 'n') }));
    emu = await startEmulator({ port: 0, store: await loadSeed('demo') });
    repo = join(base, 'acme-docs');
    await mkdir(repo);
    env = { ...registry.env, NO_COLOR: '1', CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'demo-token', GIT_AUTHOR_NAME: 'Acme', GIT_AUTHOR_EMAIL: 'docs@acme.example', GIT_COMMITTER_NAME: 'Acme', GIT_COMMITTER_EMAIL: 'docs@acme.example' };
    await git('init', '-q');
  }, 240_000);
  afterAll(async () => {
    await emu?.close();
    await registry?.stop();
    await cleanup?.();
  });

  it(`${N}: installed from the registry, sync pulls the workspace and pushes a new file`, async () => {
    await writeFile(join(repo, 'package.json'), `${JSON.stringify({ name: 'acme-docs', version: '1.0.0', private: true }, null, 2)}\n`);
    const installed = await npm('install', `changelog-sync@${N}`);
    expect(installed.code, installed.stderr).toBe(0);
    await writeFile(join(repo, 'changelog.config.json'), `${JSON.stringify({ contentDir: 'content', stateDir: '.changelog', outputDir: '_site' }, null, 2)}\n`);
    await writeFile(join(repo, '.gitignore'), 'node_modules/\n_site/\n.changelog/lock/\n.changelog/lock.json\n.changelog/budget.json\n');
    await mkdir(join(repo, 'content/entries'), { recursive: true });
    await writeFile(join(repo, 'content/entries/2026-12-01-upgrades.md'), '---\ntitle: Safe upgrades\npublish_at: 2026-12-01\n---\nThe state carries its format.\n');

    const synced = await cli('sync', '--skip-build');
    expect(synced.code, `${synced.stdout}\n${synced.stderr}`).toBe(0);
    expect(posts()).toEqual(['POST /api/entry']);
    expect((await readdir(join(repo, 'content/entries'))).length).toBeGreaterThan(1);
    expect(await readFile(join(repo, 'content/entries/2026-12-01-upgrades.md'), 'utf8')).toMatch(/^identifier: /m);
    const state = JSON.parse(await readFile(join(repo, '.changelog/state.json'), 'utf8')) as { version: number; tool: string };
    expect([state.version, state.tool]).toEqual([2, N]);
    await git('add', '-A');
    await git('commit', '-qm', `changelog-sync ${N}: first sync`);
    // The first install fetches every dependency through the registry's proxy: minutes on a busy machine.
  }, 900_000);

  it(`${NEXT}: the upgrade migrates the state, sends nothing and writes nothing else; a second sync changes nothing`, async () => {
    const tarball = await withNextStateFormat(await packTool({ version: NEXT, outDir: join(base, 'next') }));
    expect(tarball).toBe(join(dirname(tarball), `changelog-sync-${NEXT}.tgz`));
    await registry.publish(tarball);
    const upgraded = await npm('install', `changelog-sync@${NEXT}`);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    // The upgrade's pull request: package.json and the lock file only.
    expect((await git('status', '--porcelain')).split('\n').filter(Boolean).sort()).toEqual([' M package-lock.json', ' M package.json']);
    await git('commit', '-qam', `changelog-sync ${NEXT}`);

    const before = posts().length;
    const synced = await cli('sync', '--skip-build');
    expect(synced.code, `${synced.stdout}\n${synced.stderr}`).toBe(0);
    expect(synced.stderr).toContain('Migrated the state from format 2 to 3: .changelog/journal.json, .changelog/state.json');
    expect(posts().slice(before)).toEqual([]);
    expect((await git('status', '--porcelain')).split('\n').filter(Boolean).sort()).toEqual([' M .changelog/journal.json', ' M .changelog/state.json']);
    const state = JSON.parse(await readFile(join(repo, '.changelog/state.json'), 'utf8')) as { version: number; tool: string };
    expect([state.version, state.tool]).toEqual([3, NEXT]);
    await git('commit', '-qam', 'sync: state migrated');

    const again = await cli('sync', '--skip-build');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Migrated');
    expect(posts().slice(before)).toEqual([]);
    expect(await git('status', '--porcelain')).toBe('');
  }, 600_000);

  it(`${N} again: refuses the newer state, names both versions and the fix, and writes nothing`, async () => {
    const downgraded = await npm('install', `changelog-sync@${N}`);
    expect(downgraded.code, downgraded.stderr).toBe(0);
    const before = await snapshot(repo);
    const requests = emu.log.length;
    for (const args of [['sync', '--skip-build'], ['status'], ['build']]) {
      const refused = await cli(...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain(`.changelog/state.json is state format 3, written by changelog-sync ${NEXT}; this changelog-sync (${N}) knows formats 1 to 2. Nothing was written`);
      expect(refused.stderr).toContain(`upgrade changelog-sync to ${NEXT} or later (npm install changelog-sync@${NEXT})`);
    }
    expect(emu.log.length).toBe(requests);
    expect(await snapshot(repo)).toEqual(before);
  }, 600_000);
});
