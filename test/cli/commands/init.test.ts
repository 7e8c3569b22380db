// `changelog-sync init` in an existing repository: it writes the config, the workflows and
// .gitignore lines, keeps what exists, and says what the workflows need that it does not
// write (package.json listing changelog-sync, package-lock.json for `npm ci`). The command runs
// in the test's process as the CLI runs it (helpers/process/command.ts).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { initCommand } from '../../../src/cli/commands/init.js';
import { runCli, useTempDir, type CliResult } from '../../helpers/process/cli.js';
import { runCommand } from '../../helpers/process/command.js';

// `require.resolve` by that name: knip reads it as a use of the package.
const VALIDATOR = createRequire(import.meta.url).resolve('@action-validator/cli/cli.mjs');
/** git with no global or system configuration. */
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** `changelog-sync init` in `cwd`: `--json`, `--dry-run`, more environment. */
const init = (cwd: string, options: { json?: boolean; dryRun?: boolean; env?: Record<string, string> } = {}): Promise<CliResult> =>
  runCommand((config, reporter) => initCommand(config, reporter, { dryRun: options.dryRun }), { cwd, env: options.env, json: options.json });

type Workflow = { on: { push?: { branches: string[]; paths: string[] } }; jobs: Record<string, { steps: Array<{ uses?: string; run?: string; with?: Record<string, string> }> }> };
const workflow = async (dir: string, name: string) => parseYaml(await readFile(join(dir, '.github/workflows', name), 'utf8')) as Workflow;

describe('init', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it('without package.json or lock file: writes its files and tells how to add both', async () => {
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ .github/workflows/changelog.yml (created)');
    expect(r.stdout).toContain('The workflows also need:');
    expect(r.stdout).toContain('! package.json: missing. The workflows install with `npm ci` and run `npx --no-install changelog-sync`: run `npm init -y`, then `npm install --save-exact changelog-sync');
    expect(r.stdout).toContain('! package-lock.json: missing. The workflows install with `npm ci`');
    expect(existsSync(join(dir, '.github/workflows/changelog-check.yml'))).toBe(true);
    const json = await init(dir, { json: true });
    const result = JSON.parse(json.stdout) as { needs: string[]; kept: string[]; created: string[] };
    expect(result.created).toEqual([]);
    expect(result.kept).toContain('changelog.config.json');
    expect(result.needs).toHaveLength(2);
  });

  it('with package.json but not the dependency, and yarn.lock: says both', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', dependencies: { lodash: '4.17.21' } }));
    await writeFile(join(dir, 'yarn.lock'), '');
    const r = await init(dir, { dryRun: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('! package.json does not list changelog-sync');
    expect(r.stdout).toContain('! package-lock.json: missing (this repository has yarn.lock)');
    expect(existsSync(join(dir, 'changelog.config.json'))).toBe(false); // a dry run
  });

  it('with the dependency and package-lock.json: needs nothing more', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', devDependencies: { 'changelog-sync': '0.1.0' } }));
    await writeFile(join(dir, 'package-lock.json'), '{}');
    await writeFile(join(dir, '.gitignore'), 'dist\n');
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('also need');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toMatch(/^dist\n# changelog-sync\nnode_modules\/\n_site\//);
  });

  it('adds config, workflows, .gitignore lines; keeps what exists; --dry-run writes nothing (--json)', async () => {
    await writeFile(join(dir, '.gitignore'), 'dist/\n_site\n');
    await mkdir(join(dir, '.github/workflows'), { recursive: true });
    await writeFile(join(dir, '.github/workflows/changelog.yml'), 'mine\n');
    const dry = await init(dir, { json: true, dryRun: true });
    expect(dry.code).toBe(0);
    expect(existsSync(join(dir, 'changelog.config.json'))).toBe(false);
    const r = await init(dir, { json: true });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { created: string[]; updated: string[]; kept: string[] };
    expect(out.created.sort()).toEqual(['.github/workflows/changelog-check.yml', 'changelog.config.json', 'content/entries/.gitkeep']);
    expect(out.updated).toEqual(['.gitignore']);
    expect(out.kept).toEqual(['.github/workflows/changelog.yml']);
    expect(await readFile(join(dir, '.github/workflows/changelog.yml'), 'utf8')).toBe('mine\n');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('dist/\n_site\n# changelog-sync\nnode_modules/\n.demo/\n.changelog/lock/\n.changelog/lock.json\n.changelog/budget.json\nchangelog-sync-*.tgz\n');
    expect((JSON.parse(await readFile(join(dir, 'changelog.config.json'), 'utf8')) as { $schema: string }).$schema).toBe('./node_modules/changelog-sync/changelog.config.schema.json');
    // The written config is valid for changelog-sync itself.
    expect((await runCli(['build', '--help'], { cwd: dir })).code).toBe(0);
  });
});

describe('init fits the repository', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it("watches origin's default branch, not main (a clone of a repository whose branch is master, on another branch)", async () => {
    const origin = join(dir, 'origin.git');
    git(dir, 'init', '-q', '--bare', '-b', 'master', origin);
    const seed = join(dir, 'seed');
    git(dir, 'clone', '-q', origin, seed);
    await writeFile(join(seed, 'README.md'), 'docs\n');
    git(seed, 'add', '-A');
    git(seed, '-c', 'user.name=s', '-c', 'user.email=s@x', 'commit', '-qm', 'seed');
    git(seed, 'push', '-q', 'origin', 'master');
    const repo = join(dir, 'repo');
    git(dir, 'clone', '-q', origin, repo);
    git(repo, 'checkout', '-q', '-b', 'add-changelog');
    const r = await init(repo);
    expect(r.code, r.stderr).toBe(0);
    expect((await workflow(repo, 'changelog.yml')).on.push!.branches).toEqual(['master']);
    expect(r.stdout).toContain("the push trigger on master (origin's default branch)");
  });

  it('without a remote: the branch checked out (an unborn master); outside git: main', async () => {
    git(dir, 'init', '-q', '-b', 'master');
    const r = await init(dir, { json: true });
    expect(JSON.parse(r.stdout)).toMatchObject({ fit: { branch: 'master', branchSource: 'current' } });
    expect((await workflow(dir, 'changelog.yml')).on.push!.branches).toEqual(['master']);
    const plain = join(dir, 'plain');
    await mkdir(plain);
    // GIT_CEILING_DIRECTORIES: git does not find the repository above.
    const outside = await init(plain, { json: true, dryRun: true, env: { GIT_CEILING_DIRECTORIES: dir } });
    expect(JSON.parse(outside.stdout)).toMatchObject({ fit: { branch: 'main', branchSource: 'default' } });
  });

  it('names the configured content, state and output folders in the workflows, the config and .gitignore; the workflows stay valid', async () => {
    git(dir, 'init', '-q', '-b', 'main');
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', dependencies: { 'changelog-sync': 'file:changelog-sync-0.1.0.tgz' } }));
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ contentDir: 'docs/changelog', stateDir: 'docs/.sync', outputDir: 'public' }));
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    const sync = await workflow(dir, 'changelog.yml');
    expect(sync.on.push!.paths).toContain('docs/changelog/**');
    expect(sync.on.push!.paths).not.toContain('content/**');
    const steps = sync.jobs.sync!.steps;
    expect(steps.filter((s) => s.uses?.startsWith('actions/cache/')).map((s) => s.with?.path)).toEqual(['docs/.sync/budget.json', 'docs/.sync/budget.json']);
    expect(steps.find((s) => s.uses?.startsWith('actions/upload-pages-artifact@'))!.with?.path).toBe('public');
    const check = (await workflow(dir, 'changelog-check.yml')).jobs.check!.steps.map((s) => s.run ?? '').join('\n');
    expect(check).toContain("-- 'docs/changelog/entries/*.md'");
    expect(check).not.toContain("'content/");
    for (const f of ['changelog.yml', 'changelog-check.yml']) execFileSync(process.execPath, [VALIDATOR, join(dir, '.github/workflows', f)], { stdio: 'pipe' });
    expect(existsSync(join(dir, 'docs/changelog/entries/.gitkeep'))).toBe(true);
    const ignored = (await readFile(join(dir, '.gitignore'), 'utf8')).split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['public/', 'docs/.sync/lock/', 'docs/.sync/budget.json', 'changelog-sync-*.tgz', '!changelog-sync-0.1.0.tgz']));
    // git's own reading: stray packs and the ledger ignored, the installed pack committed.
    await writeFile(join(dir, 'changelog-sync-0.0.9.tgz'), '');
    await writeFile(join(dir, 'changelog-sync-0.1.0.tgz'), '');
    await mkdir(join(dir, 'docs/.sync'), { recursive: true });
    await writeFile(join(dir, 'docs/.sync/budget.json'), '{}');
    const status = git(dir, 'status', '--porcelain', '--untracked-files=all');
    expect(status).toContain('changelog-sync-0.1.0.tgz');
    expect(status).not.toContain('changelog-sync-0.0.9.tgz');
    expect(status).not.toContain('budget.json');
  });

  it('the folders from CHANGELOG_*_DIR go into the config it writes too (the workflows do not see the variables)', async () => {
    const r = await init(dir, { env: { CHANGELOG_CONTENT_DIR: 'notes', CHANGELOG_OUTPUT_DIR: 'site-out' } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'changelog.config.json'), 'utf8'))).toMatchObject({ contentDir: 'notes', outputDir: 'site-out' });
    expect((await workflow(dir, 'changelog.yml')).on.push!.paths).toContain('notes/**');
  });

  it('refuses a folder it cannot write into a workflow, naming the field and the fix, and writes nothing', async () => {
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ contentDir: "it's here" }));
    const r = await init(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: contentDir "it\'s here" cannot be written into the workflows');
    expect(r.stderr).toContain('fix: set contentDir in changelog.config.json');
    expect(existsSync(join(dir, '.github'))).toBe(false);
  });

  it('run again, says what each existing file differs in from what it would write, and overwrites nothing', async () => {
    git(dir, 'init', '-q', '-b', 'main');
    expect((await init(dir)).code).toBe(0);
    const again = await init(dir);
    expect(again.stdout).toContain('= .github/workflows/changelog.yml (exists, kept)');
    expect(again.stdout).not.toContain('differs');
    // The team edits its workflow (another cron), and the repository's branch becomes trunk.
    const path = join(dir, '.github/workflows/changelog.yml');
    const edited = (await readFile(path, 'utf8')).replace("- cron: '17 * * * *'", "- cron: '5 6-18 * * 1-5'");
    await writeFile(path, edited);
    git(dir, 'checkout', '-q', '-b', 'trunk');
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("* .github/workflows/changelog.yml (exists, kept; differs from what init would write: 2 lines added, 2 removed; - yours, + init's):");
    expect(r.stdout).toMatch(/^ {6}- {4}- cron: '5 6-18 \* \* 1-5'$/m);
    expect(r.stdout).toMatch(/^ {6}\+ {4}- cron: '17 \* \* \* \*'$/m);
    expect(r.stdout).toMatch(/^ {6}- {4}branches: \[main\]$/m);
    expect(r.stdout).toMatch(/^ {6}\+ {4}branches: \[trunk\]$/m);
    expect(r.stdout).toContain('= .github/workflows/changelog-check.yml (exists, kept)');
    expect(await readFile(path, 'utf8')).toBe(edited);
    const json = JSON.parse((await init(dir, { json: true, dryRun: true })).stdout) as { differs: Array<{ file: string; added: number; removed: number; diff: string[] }> };
    expect(json.differs).toEqual([expect.objectContaining({ file: '.github/workflows/changelog.yml', added: 2, removed: 2 })]);
  });
});
