// Upgrades of the state directory (docs/sync.md, "State format and upgrades"), as a team
// meets them: the real CLI in a git repository holding a project that an earlier
// changelog-sync left (test/fixtures/state-format/), against the emulator over HTTP seeded
// with the same workspace.
//
// - an older format is migrated in place by the first run, and the upgrade sends nothing
//   and writes nothing else: no POST, `git status` shows state.json only, a second run
//   changes nothing;
// - a run killed between the migration's files (failpoint `state-format:after-file`)
//   leaves the older state.json, and the next run migrates it;
// - a dry run migrates nothing;
// - a newer format is refused by every command that touches the state directory: exit 1,
//   both versions and the fix named, no request, and the project's bytes unchanged.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadSeed } from '../../../src/emulator/seed.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { runCli, tempDir } from '../../helpers/process/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/state-format/', import.meta.url));
const TOOL = (JSON.parse(await readFile(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version: string }).version;
/** The clock of the fixtures' emulator: the time the fixtures were written. */
const FIXTURE_NOW = (): number => Date.parse('2026-11-30T12:00:00Z');

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** Every file of the project but .git, by path, as a digest of its bytes. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const d of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const abs = join(d.parentPath, d.name);
    const rel = relative(dir, abs);
    if (rel === '.git' || rel.startsWith('.git/')) continue;
    out[rel] = d.isFile() ? createHash('sha256').update(await readFile(abs)).digest('hex') : 'dir';
  }
  return out;
}

const readJson = async (path: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;

describe('a state of format 1 (0.1.x), met by this version', () => {
  let emu: RunningEmulator;
  let dir: string;
  let cleanup: () => Promise<void>;
  const env = (): Record<string, string> => ({ CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'fixture-token' });

  beforeEach(async () => {
    emu = await startEmulator({ port: 0, store: await loadSeed(join(FIXTURES, 'format-1/seed.json'), FIXTURE_NOW), now: FIXTURE_NOW });
    ({ dir, cleanup } = await tempDir('changelog-state-format-'));
    await cp(join(FIXTURES, 'format-1/project'), dir, { recursive: true });
    // The .gitignore lines init writes for the state directory.
    await writeFile(join(dir, '.gitignore'), '.changelog/budget.json\n.changelog/lock/\n.changelog/lock.json\n');
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'as 0.1.x left it');
  });
  afterEach(async () => {
    await emu.close();
    await cleanup();
  });

  it('sync migrates it in place: state.json and budget.json rewritten, nothing sent, no other file changed; a second sync changes nothing', async () => {
    const before = await readJson(join(dir, '.changelog/state.json'));
    const r = await runCli(['sync', '--skip-build'], { cwd: dir, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Migrated the state from format 1 to 2: .changelog/budget.json, .changelog/state.json');
    expect(emu.log.filter((l) => l.method !== 'GET')).toEqual([]);
    expect(git(dir, 'status', '--porcelain')).toBe(' M .changelog/state.json\n');
    const after = await readJson(join(dir, '.changelog/state.json'));
    expect(after).toEqual({ ...before, version: 2, tool: TOOL });
    expect(Object.keys(after).slice(0, 2)).toEqual(['version', 'tool']);
    // The ledger's migration keeps its counts (test/sync/store/state-format.test.ts); the run then books its own requests.
    expect((await readJson(join(dir, '.changelog/budget.json'))).version).toBe(2);

    git(dir, 'commit', '-qam', 'migrated');
    const again = await runCli(['sync', '--skip-build'], { cwd: dir, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Migrated');
    expect(emu.log.filter((l) => l.method !== 'GET')).toEqual([]);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a sync killed between the migration\'s files leaves state.json at format 1, and the next run migrates it', async () => {
    const stateBefore = await readFile(join(dir, '.changelog/state.json'), 'utf8');
    const killed = await runCli(['sync', '--skip-build'], { cwd: dir, env: { ...env(), CHANGELOG_FAILPOINT: 'state-format:after-file' } });
    expect(killed.signal, `${killed.stdout}\n${killed.stderr}`).toBe('SIGKILL');
    expect(await readFile(join(dir, '.changelog/state.json'), 'utf8')).toBe(stateBefore);
    expect((await readJson(join(dir, '.changelog/budget.json'))).version).toBe(2);

    const resumed = await runCli(['sync', '--skip-build'], { cwd: dir, env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('Migrated the state from format 1 to 2');
    expect(emu.log.filter((l) => l.method !== 'GET')).toEqual([]);
    expect(git(dir, 'status', '--porcelain')).toBe(' M .changelog/state.json\n');
    expect(await readJson(join(dir, '.changelog/state.json'))).toEqual({ ...JSON.parse(stateBefore), version: 2, tool: TOOL });
  });

  it('a dry run reads it as it is and migrates nothing', async () => {
    const stateBefore = await readFile(join(dir, '.changelog/state.json'), 'utf8');
    for (const args of [['status'], ['sync', '--dry-run'], ['pull', '--dry-run'], ['push', '--dry-run']]) {
      const r = await runCli(args, { cwd: dir, env: env() });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr, args.join(' ')).toContain('The state is format 1: read as it is; the next run that is not a dry run migrates it to format 2');
      expect(await readFile(join(dir, '.changelog/state.json'), 'utf8')).toBe(stateBefore);
    }
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('a state of a newer format, met by this version', () => {
  let emu: RunningEmulator;
  let dir: string;
  let cleanup: () => Promise<void>;
  const env = (): Record<string, string> => ({ CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'fixture-token', CHANGELOG_SITE_URL: 'https://acme.example.com/' });

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, store: await loadSeed(join(FIXTURES, 'format-1/seed.json'), FIXTURE_NOW), now: FIXTURE_NOW });
    ({ dir, cleanup } = await tempDir('changelog-state-newer-'));
    await cp(join(FIXTURES, 'format-1/project'), dir, { recursive: true });
  });
  afterAll(async () => {
    await emu.close();
    await cleanup();
  });

  /** Makes state.json as a later changelog-sync would leave it: format 3, its version as `tool`. */
  async function newer(tool: string): Promise<void> {
    const path = join(dir, '.changelog/state.json');
    await writeFile(path, `${JSON.stringify({ ...(await readJson(path)), version: 3, tool }, null, 2)}\n`);
  }

  const commands = [['sync', '--skip-build'], ['sync'], ['pull'], ['push'], ['status'], ['sync', '--dry-run'], ['build'], ['subscribers', 'list']];
  it.each(commands.map((args) => [args.join(' '), args] as const))('`%s` refuses it: exit 1, both versions and the fix named, nothing sent, nothing written', async (_, args) => {
    await newer('0.9.0');
    const before = await snapshot(dir);
    const requests = emu.log.length;
    const r = await runCli([...args], { cwd: dir, env: env() });
    expect(r.code, r.stdout).toBe(1);
    expect(r.stderr).toContain('E_STATE_FORMAT');
    expect(r.stderr).toContain(`state format 3, written by changelog-sync 0.9.0; this changelog-sync (${TOOL}) knows formats 1 to 2. Nothing was written`);
    expect(r.stderr).toContain('upgrade changelog-sync to 0.9.0 or later (npm install changelog-sync@0.9.0)');
    expect(emu.log.length).toBe(requests);
    expect(await snapshot(dir)).toEqual(before);
  });

  it('a `tool` that is not a plain version is not printed', async () => {
    await newer('\u001b[31m1.0.0\u001b[0m');
    const before = await snapshot(dir);
    const r = await runCli(['sync', '--skip-build'], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`state format 3; this changelog-sync (${TOOL}) knows formats 1 to 2`);
    expect(r.stderr).toContain('npm install changelog-sync@latest');
    expect(r.stderr).not.toContain('\u001b[31m');
    expect(await snapshot(dir)).toEqual(before);
  });
});
