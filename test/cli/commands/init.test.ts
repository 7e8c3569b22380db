// `changelog-sync init` in an empty or existing repository: it writes package.json (or adds
// what it lacks), the config, the team's workflows, Dependabot and .gitignore lines, keeps what
// exists, and says what is left to do (`npm install` for the lock file `npm ci` needs). The
// command runs in the test's process as the CLI runs it (helpers/process/command.ts).
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
const init = (cwd: string, options: { json?: boolean; dryRun?: boolean; templates?: boolean; env?: Record<string, string> } = {}): Promise<CliResult> =>
  runCommand((config, reporter) => initCommand(config, reporter, { dryRun: options.dryRun, templates: options.templates }), { cwd, env: options.env, json: options.json });

type Workflow = { on: { push?: { branches: string[]; paths: string[] } }; jobs: Record<string, { uses?: string; with?: Record<string, string>; steps?: Array<{ uses?: string; run?: string; with?: Record<string, string> }> }> };
const VERSION = (JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const workflow = async (dir: string, name: string) => parseYaml(await readFile(join(dir, '.github/workflows', name), 'utf8')) as Workflow;

describe('init', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it('in an empty folder: writes package.json with changelog-sync by caret range, and says the one command left: npm install', async () => {
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ .github/workflows/changelog.yml (created)');
    expect(r.stdout).toContain('+ package.json (created)');
    expect(r.stdout).toContain('Still to do here:');
    expect(r.stdout).toContain('! package-lock.json: missing. The workflows install with `npm ci`: run `npm install`, which writes it, and commit it');
    expect(existsSync(join(dir, '.github/workflows/changelog-check.yml'))).toBe(true);
    expect(existsSync(join(dir, '.github/dependabot.yml'))).toBe(true);
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg).toEqual({ name: expect.any(String) as string, private: true, dependencies: { 'changelog-sync': `^${VERSION}` }, allowScripts: { sharp: false } });
    const json = await init(dir, { json: true });
    const result = JSON.parse(json.stdout) as { needs: string[]; kept: string[]; created: string[]; updated: string[] };
    expect(result.created).toEqual([]);
    expect(result.updated).toEqual([]);
    expect(result.kept).toEqual(expect.arrayContaining(['changelog.config.json', 'package.json']));
    expect(result.needs).toHaveLength(1);
  });

  it('no tarball, no tool source: only the team\'s files', async () => {
    git(dir, 'init', '-q', '-b', 'main');
    expect((await init(dir)).code).toBe(0);
    git(dir, 'add', '-A');
    expect(git(dir, 'ls-files').split('\n').sort()).toEqual(['.github/dependabot.yml', '.github/workflows/changelog-check.yml', '.github/workflows/changelog.yml', '.gitignore', 'changelog.config.json', 'content/entries/.gitkeep', 'package.json']);
  });

  it('merges into an existing package.json: adds only what is missing, keeps its fields, order and indentation', async () => {
    const mine = { name: 'docs', version: '2.0.0', scripts: { start: 'vite' }, dependencies: { vite: '^7.0.0' }, allowScripts: { esbuild: true } };
    await writeFile(join(dir, 'package.json'), `${JSON.stringify(mine, null, 4)}\n`);
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`~ package.json (added dependencies.changelog-sync ^${VERSION}, allowScripts.sharp false)`);
    const text = await readFile(join(dir, 'package.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify({ ...mine, dependencies: { vite: '^7.0.0', 'changelog-sync': `^${VERSION}` }, allowScripts: { esbuild: true, sharp: false } }, null, 4)}\n`);
    // A version the team chose is never changed.
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', devDependencies: { 'changelog-sync': '~0.0.9' }, allowScripts: { sharp: true } }));
    const again = await init(dir, { json: true });
    expect(JSON.parse(again.stdout)).toMatchObject({ kept: expect.arrayContaining(['package.json']) as string[] });
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))).toEqual({ name: 'docs', devDependencies: { 'changelog-sync': '~0.0.9' }, allowScripts: { sharp: true } });
  });

  it('refuses a package.json that is no JSON, naming the file and the fix, and writes nothing', async () => {
    await writeFile(join(dir, 'package.json'), '{ "name": "docs", }');
    const r = await init(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_FILE: package.json cannot be read as JSON');
    expect(r.stderr).toContain('fix: fix the JSON of package.json');
    expect(await readFile(join(dir, 'package.json'), 'utf8')).toBe('{ "name": "docs", }');
    expect(existsSync(join(dir, 'changelog.config.json'))).toBe(false);
    expect(existsSync(join(dir, '.github'))).toBe(false);
  });

  it('a package.json that installs changelog-sync from a packed file: says how to take the registry\'s, which Dependabot can update', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', dependencies: { 'changelog-sync': 'file:changelog-sync-0.1.0.tgz' } }));
    await writeFile(join(dir, 'package-lock.json'), '{}');
    const r = await init(dir, { dryRun: true });
    expect(r.stdout).toContain(`! package.json installs changelog-sync from file:changelog-sync-0.1.0.tgz, which Dependabot cannot update: run \`npm install changelog-sync@^${VERSION}\``);
  });

  it('--templates copies the site\'s templates into site/ to override them, never over a file there', async () => {
    await mkdir(join(dir, 'site/_includes'), { recursive: true });
    await writeFile(join(dir, 'site/_includes/header.njk'), 'mine\n');
    expect((await init(dir)).stdout).not.toContain('+ site/');
    const r = await init(dir, { templates: true, json: true });
    const out = JSON.parse(r.stdout) as { created: string[]; kept: string[] };
    expect(out.created).toEqual(expect.arrayContaining(['site/_includes/base.njk', 'site/index.11ty.mjs', 'site/widget.js']));
    expect(out.kept).toContain('site/_includes/header.njk');
    expect(await readFile(join(dir, 'site/_includes/header.njk'), 'utf8')).toBe('mine\n');
    expect(await readFile(join(dir, 'site/index.11ty.mjs'), 'utf8')).toBe(await readFile(new URL('../../../site/index.11ty.mjs', import.meta.url), 'utf8'));
  });

  it('with package.json but not the dependency, and yarn.lock: would add the dependency, and says npm install', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', dependencies: { lodash: '4.17.21' } }));
    await writeFile(join(dir, 'yarn.lock'), '');
    const r = await init(dir, { dryRun: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`~ package.json (would add dependencies.changelog-sync ^${VERSION}, allowScripts.sharp false)`);
    expect(r.stdout).toContain('! package-lock.json: missing (this repository has yarn.lock)');
    expect(existsSync(join(dir, 'changelog.config.json'))).toBe(false); // a dry run
    expect(await readFile(join(dir, 'package.json'), 'utf8')).not.toContain('changelog-sync');
  });

  it('with the dependency and package-lock.json: needs nothing more', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', devDependencies: { 'changelog-sync': '0.1.0' } }));
    await writeFile(join(dir, 'package-lock.json'), '{}');
    await writeFile(join(dir, '.gitignore'), 'dist\n');
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('Still to do');
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
    expect(out.created.sort()).toEqual(['.github/dependabot.yml', '.github/workflows/changelog-check.yml', 'changelog.config.json', 'content/entries/.gitkeep', 'package.json']);
    expect(out.updated).toEqual(['.gitignore']);
    expect(out.kept).toEqual(['.github/workflows/changelog.yml']);
    expect(await readFile(join(dir, '.github/workflows/changelog.yml'), 'utf8')).toBe('mine\n');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('dist/\n_site\n# changelog-sync\nnode_modules/\n.demo/\n.changelog/lock/\n.changelog/lock.json\n.changelog/budget.json\n');
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
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ contentDir: 'docs/changelog', stateDir: 'docs/.sync', outputDir: 'public' }));
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    const sync = await workflow(dir, 'changelog.yml');
    expect(sync.on.push!.paths).toContain('docs/changelog/**');
    expect(sync.on.push!.paths).not.toContain('content/**');
    // The reusable workflow takes them as inputs (the ledger's cache, the Pages artifact, the check's entry files).
    expect(sync.jobs.changelog!.with).toEqual({ 'state-dir': 'docs/.sync', 'output-dir': 'public' });
    expect(sync.jobs.changelog!.uses).toBe('changelog-sync/changelog-sync/.github/workflows/sync.yml@v0');
    const check = await workflow(dir, 'changelog-check.yml');
    expect(check.jobs.check!.with).toEqual({ 'content-dir': 'docs/changelog' });
    for (const f of ['changelog.yml', 'changelog-check.yml']) execFileSync(process.execPath, [VALIDATOR, join(dir, '.github/workflows', f)], { stdio: 'pipe' });
    expect(existsSync(join(dir, 'docs/changelog/entries/.gitkeep'))).toBe(true);
    const ignored = (await readFile(join(dir, '.gitignore'), 'utf8')).split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['public/', 'docs/.sync/lock/', 'docs/.sync/budget.json']));
    // git's own reading: the ledger ignored.
    await mkdir(join(dir, 'docs/.sync'), { recursive: true });
    await writeFile(join(dir, 'docs/.sync/budget.json'), '{}');
    const status = git(dir, 'status', '--porcelain', '--untracked-files=all');
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

  it("with workspaces in the config: the workflow lists each one's secret, .gitignore their lock and ledger lines, no content/entries/", async () => {
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ workspaces: { app: { tokenEnv: 'CHANGELOG_TOKEN_APP' }, api: { tokenEnv: 'CHANGELOG_TOKEN_API' } } }));
    const r = await init(dir);
    expect(r.code, r.stderr).toBe(0);
    expect((await workflow(dir, 'changelog.yml')).jobs.changelog!.with!['workspace-secrets']).toBe('CHANGELOG_TOKEN_APP\nCHANGELOG_TOKEN_API\n');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toContain('.changelog/*/lock/\n.changelog/*/lock.json\n.changelog/*/budget.json\n');
    expect(existsSync(join(dir, 'content/entries'))).toBe(false);
    expect(r.stdout).toContain('Next: add the secrets CHANGELOG_TOKEN_APP, CHANGELOG_TOKEN_API (one per workspace) and the variable CHANGELOG_BASE_URL');
  });
});
