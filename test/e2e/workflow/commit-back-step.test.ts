// The workflow's commit-back, run as the workflow runs it: the `run` script of its commit
// step, taken from the reusable .github/workflows/sync.yml, executed by bash in a clone acting as
// the runner, against a bare "origin" that a writer's clone pushes to meanwhile.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CLI, useTempDir } from '../../helpers/process/cli.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

type Step = { run?: string; if?: string; name?: string };
/** The script of a job's commit-back step, exactly as the workflow has it. */
function commitStep(job = 'sync'): string {
  const wf = parseYaml(readFileSync(join(ROOT, '.github/workflows/sync.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
  const steps = wf.jobs[job]!.steps.filter((s) => s.run?.includes('commit-back'));
  expect(steps).toHaveLength(1);
  return steps[0]!.run!;
}

/** git with no global or system configuration: the test's own repositories only. */
const GIT_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
for (const k of Object.keys(GIT_ENV)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete GIT_ENV[k];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}
function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}
/** Commits everything in the clone as `name` and pushes it to origin's main. */
function commitAndPush(cwd: string, name: string, message: string): void {
  git(cwd, 'add', '-A');
  git(cwd, '-c', `user.name=${name}`, '-c', `user.email=${name}@example.test`, 'commit', '-qm', message);
  git(cwd, 'push', '-q', 'origin', 'main');
}

/**
 * origin (bare, branch main), seeded with a mirror; `runner` and `writer` clones of it. The
 * runner has changelog-sync installed the way npm installs a bin (node_modules/.bin).
 */
function repositories(dir: string): { origin: string; runner: string; writer: string } {
  const origin = join(dir, 'origin.git');
  git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
  const seed = join(dir, 'seed');
  git(dir, 'clone', '-q', origin, seed);
  write(join(seed, 'package.json'), JSON.stringify({ name: 'team-changelog', private: true, dependencies: { 'changelog-sync': '*' } }));
  write(join(seed, '.gitignore'), 'node_modules/\n_site/\n');
  write(join(seed, 'content/entries/2026-01-01-first.md'), '---\ntitle: First\nidentifier: 11111111-1111-4111-8111-111111111111\n---\nOne.\n');
  write(join(seed, '.changelog/state.json'), '{\n  "entries": {}\n}\n');
  commitAndPush(seed, 'seed', 'seed');
  const runner = join(dir, 'runner');
  const writer = join(dir, 'writer');
  git(dir, 'clone', '-q', origin, runner);
  git(dir, 'clone', '-q', origin, writer);
  mkdirSync(join(runner, 'node_modules/.bin'), { recursive: true });
  symlinkSync(ROOT, join(runner, 'node_modules/changelog-sync'));
  write(join(runner, 'node_modules/.bin/changelog-sync'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(runner, 'node_modules/.bin/changelog-sync'), 0o755);
  return { origin, runner, writer };
}

/** Runs a job's commit step in the runner clone, as the Actions runner does (bash -e). */
function runCommitStep(runner: string, job = 'sync'): { code: number | null; out: string } {
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', commitStep(job)], { cwd: runner, env: { ...GIT_ENV, npm_config_offline: 'true', NO_COLOR: '1' }, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

describe("the workflow's commit-back", () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  it('rebases onto a main that a writer moved meanwhile, and pushes', () => {
    const { origin, runner, writer } = repositories(dir);
    // The job pulled an entry and wrote its state...
    write(join(runner, 'content/entries/2026-02-01-pulled.md'), '---\ntitle: Pulled\nidentifier: 22222222-2222-4222-8222-222222222222\n---\nTwo.\n');
    write(join(runner, '.changelog/state.json'), '{\n  "entries": { "22222222-2222-4222-8222-222222222222": {} }\n}\n');
    // ...while a writer merged a new entry to main.
    write(join(writer, 'content/entries/2026-02-02-by-a-writer.md'), '---\ntitle: By a writer\n---\nNew.\n');
    commitAndPush(writer, 'writer', 'a writer adds an entry');

    const { code, out } = runCommitStep(runner);
    expect(code, out).toBe(0);
    expect(out).toContain('rebas');
    // main has the writer's commit, then the runner's, as github-actions[bot], with [skip ci].
    const log = git(origin, 'log', '--format=%an|%s', 'main').split('\n');
    expect(log.slice(0, 3)).toEqual(['github-actions[bot]|changelog: sync from the service [skip ci]', 'writer|a writer adds an entry', 'seed|seed']);
    const tree = git(origin, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(tree).toEqual(expect.arrayContaining(['content/entries/2026-02-01-pulled.md', 'content/entries/2026-02-02-by-a-writer.md', '.changelog/state.json']));
    expect(tree.some((f) => f.startsWith('node_modules'))).toBe(false);
    expect(git(runner, 'status', '--porcelain')).toBe('');
  }, 180_000);

  it('commits nothing when nothing changed', () => {
    const { origin, runner } = repositories(dir);
    const before = git(origin, 'rev-parse', 'main');
    const { code, out } = runCommitStep(runner);
    expect(code, out).toBe(0);
    expect(out).toContain('Nothing to commit');
    expect(git(origin, 'rev-parse', 'main')).toBe(before);
  }, 180_000);

  it('fails loudly when the rebase cannot apply, and keeps the commit (locally and on a branch of its own)', () => {
    const { origin, runner, writer } = repositories(dir);
    write(join(runner, '.changelog/state.json'), '{\n  "entries": { "from-the-runner": {} }\n}\n');
    write(join(writer, '.changelog/state.json'), '{\n  "entries": { "from-the-writer": {} }\n}\n');
    commitAndPush(writer, 'writer', 'a writer edits the state');
    const writersMain = git(origin, 'rev-parse', 'main');

    const { code, out } = runCommitStep(runner);
    expect(code).not.toBe(0);
    expect(out).toContain('error E_GIT: the commit-back cannot be rebased onto the moved branch: conflict in .changelog/state.json');
    const branch = /pushed to the branch (changelog-sync\/unmerged-\d{8}T\d{6}Z)/.exec(out)?.[1];
    expect(branch, out).toBeDefined();
    expect(out).toContain(`fix: merge the branch ${branch} into the main branch by hand`);
    // main is the writer's; the runner's commit is on HEAD (no rebase left half-done) and on the branch.
    expect(git(origin, 'rev-parse', 'main')).toBe(writersMain);
    expect(existsSync(join(runner, '.git/rebase-merge')) || existsSync(join(runner, '.git/rebase-apply'))).toBe(false);
    expect(git(runner, 'log', '-1', '--format=%s')).toBe('changelog: sync from the service [skip ci]');
    expect(git(runner, 'show', 'HEAD:.changelog/state.json')).toContain('from-the-runner');
    expect(git(origin, 'rev-parse', branch!)).toBe(git(runner, 'rev-parse', 'HEAD'));
  }, 180_000);

  it('fails at once, with git\'s reason, when the push is refused for another reason than a moved branch', () => {
    const { origin, runner } = repositories(dir);
    write(join(origin, 'hooks/pre-receive'), '#!/bin/sh\necho "protected branch: pushes need a review" >&2\nexit 1\n');
    chmodSync(join(origin, 'hooks/pre-receive'), 0o755);
    write(join(runner, 'content/entries/2026-03-01-x.md'), '---\ntitle: X\n---\nX.\n');
    const { code, out } = runCommitStep(runner);
    expect(code).not.toBe(0);
    expect(out).toContain('error E_GIT: the push failed (git push)');
    expect(out).toContain('protected branch: pushes need a review');
    expect(out).not.toContain('rebasing');
  }, 180_000);

  it('gives up after --attempts pushes when the branch keeps moving, keeping the commit', () => {
    const { origin, runner } = repositories(dir);
    // A hook that moves main before every push lands: the push always finds main moved.
    write(
      join(origin, 'hooks/pre-receive'),
      // (outside git's quarantine of the incoming objects, as another pusher would be)
      '#!/bin/sh\nunset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES\n' +
        'parent=$(git rev-parse refs/heads/main)\ntree=$(git rev-parse "$parent^{tree}")\n' +
        'c=$(GIT_AUTHOR_NAME=w GIT_AUTHOR_EMAIL=w@x GIT_COMMITTER_NAME=w GIT_COMMITTER_EMAIL=w@x git commit-tree "$tree" -p "$parent" -m moved)\n' +
        'git update-ref refs/heads/main "$c"\n',
    );
    chmodSync(join(origin, 'hooks/pre-receive'), 0o755);
    write(join(runner, 'content/entries/2026-03-01-x.md'), '---\ntitle: X\n---\nX.\n');
    const r = spawnSync(process.execPath, [CLI, 'commit-back', '--attempts', '3', '--retry-delay', '0', '-m', 'sync [skip ci]'], { cwd: runner, env: { ...GIT_ENV, GIT_AUTHOR_NAME: 'bot', GIT_AUTHOR_EMAIL: 'bot@x', GIT_COMMITTER_NAME: 'bot', GIT_COMMITTER_EMAIL: 'bot@x', NO_COLOR: '1' }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_GIT: the push was still rejected after 3 tries: the branch keeps moving');
    expect((r.stderr.match(/rebasing onto it/g) ?? []).length).toBe(2);
    expect(git(runner, 'log', '-1', '--format=%s')).toBe('sync [skip ci]');
    expect(git(origin, 'log', '--format=%s', 'main').split('\n')).not.toContain('sync [skip ci]');
    // Not lost with the runner: saved to a branch of its own, named in the message.
    const saved = git(origin, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/changelog-sync/');
    expect(saved).toMatch(/^changelog-sync\/unmerged-\d{8}T\d{6}Z$/);
    expect(git(origin, 'log', '-1', '--format=%s', saved)).toBe('sync [skip ci]');
    expect(r.stderr).toContain(`was pushed to the branch ${saved}`);
  }, 180_000);

  it('--dry-run lists what it would commit, and stages, commits and pushes nothing', () => {
    const { origin, runner } = repositories(dir);
    write(join(runner, 'content/entries/2026-03-01-x.md'), '---\ntitle: X\n---\nX.\n');
    const before = git(origin, 'rev-parse', 'main');
    const r = spawnSync(process.execPath, [CLI, '--json', 'commit-back', '--dry-run'], { cwd: runner, env: { ...GIT_ENV, NO_COLOR: '1' }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ command: 'commit-back', committed: false, staged: ['content/entries/2026-03-01-x.md'] });
    expect(git(runner, 'diff', '--cached', '--name-only')).toBe('');
    expect(git(origin, 'rev-parse', 'main')).toBe(before);
  }, 180_000);

  it('a failed deployment: forget-build removes the committed record of the build and pushes that, over a moved main', () => {
    const { origin, runner, writer } = repositories(dir);
    // The sync job's commit-back had committed the record of the build it then failed to deploy.
    write(join(writer, '.changelog/site-inputs.json'), '{"digest":"sha256:0","dueOn":null}\n');
    commitAndPush(writer, 'bot', 'changelog: sync from the service [skip ci]');
    git(runner, 'pull', '-q');
    // ...and a writer merged meanwhile.
    write(join(writer, 'content/entries/2026-04-01-merged.md'), '---\ntitle: Merged\n---\nM.\n');
    commitAndPush(writer, 'writer', 'a writer merges');
    const r = runCommitStep(runner, 'forget-build');
    expect(r.code, r.out).toBe(0);
    const files = git(origin, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(files).not.toContain('.changelog/site-inputs.json');
    expect(files).toContain('content/entries/2026-04-01-merged.md');
    expect(git(origin, 'log', '-1', '--format=%s', 'main')).toBe('changelog: the last build was not deployed [skip ci]');
  }, 180_000);

  it('commits the configured content and state directories (changelog.config.json), not fixed names', () => {
    const { origin, runner } = repositories(dir);
    write(join(runner, 'changelog.config.json'), JSON.stringify({ contentDir: 'changelog', stateDir: 'sync-state' }));
    git(runner, 'add', 'changelog.config.json');
    git(runner, '-c', 'user.name=w', '-c', 'user.email=w@x', 'commit', '-qm', 'config');
    git(runner, 'push', '-q', 'origin', 'main');
    write(join(runner, 'changelog/entries/2026-05-01-x.md'), '---\ntitle: X\n---\nX.\n');
    write(join(runner, 'sync-state/site-inputs.json'), '{}\n');
    const r = runCommitStep(runner);
    expect(r.code, r.out).toBe(0);
    const files = git(origin, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(files).toEqual(expect.arrayContaining(['changelog/entries/2026-05-01-x.md', 'sync-state/site-inputs.json']));
  }, 180_000);
});
