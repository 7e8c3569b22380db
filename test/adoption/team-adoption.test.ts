// A team adopts changelog-sync as the README says, through a registry: the tool packed and
// published as N to a local registry (test/helpers/registry/local-registry.ts; every other
// package comes through it from the registry npm is configured with); in an empty git
// repository `npx changelog-sync@N init` and `npm install`. The team's files are listed and
// counted (no tarball, no tool source, each workflow within 40 lines and calling the tool's
// reusable workflow, dependabot.yml, package.json's caret range); the installed CLI's own
// emulator is started, and `sync` as the workflow runs it (CHANGELOG_SYNC_WORKFLOW_VERSION
// set) pulls its entries and pushes a new one; the site builds; the package entry imports and
// type-checks; the installed CLI adds a second product (`init --workspace`), syncs both and
// builds one site. Then `init` in an existing repository with a package.json of its own.
// Run by .ci/run and `npm run test:adoption` (minutes: the first install fills npm's cache).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/process/cli.js';
import { packTool, runToEnd, startLocalRegistry, type Finished as Run, type LocalRegistry } from '../helpers/registry/local-registry.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The version published: this package's own (its major is the reusable workflows'). */
const N = (JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs a command to its end in `cwd` with `env` (the registry's environment, and more), without colour. */
const run = (command: string, args: string[], cwd: string, env: Record<string, string>) => runToEnd(command, args, cwd, { ...env, NO_COLOR: '1' });

describe('a team adopts changelog-sync from a registry: npx changelog-sync@N init, npm install, sync', () => {
  let registry: LocalRegistry;
  let tarball: string;
  let base: string;
  let cleanup: () => Promise<void>;
  let repo: string;
  let emulator: ChildProcess | undefined;
  let service: { url: string; token: string; printed: string } | undefined;
  let git: (cwd: string, ...args: string[]) => Promise<Run>;

  beforeAll(async () => {
    registry = await startLocalRegistry();
    tarball = await packTool();
    await registry.publish(tarball);
    ({ dir: base, cleanup } = await tempDir('changelog-team-'));
    const gitEnv = { ...registry.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'team', GIT_AUTHOR_EMAIL: 'team@example.test', GIT_COMMITTER_NAME: 'team', GIT_COMMITTER_EMAIL: 'team@example.test' };
    git = (cwd, ...args) => run('git', args, cwd, gitEnv);
    repo = join(base, 'acme-changelog');
    await mkdir(repo);
    await git(repo, 'init', '-q', '-b', 'main');
  }, 300_000);
  afterAll(async () => {
    emulator?.kill();
    await registry?.stop();
    if (tarball) await rm(dirname(tarball), { recursive: true, force: true });
    await cleanup?.();
  });

  it(`in an empty repository, \`npx changelog-sync@N init\` and \`npm install\` leave the team's files only`, async () => {
    const init = await run('npx', ['--yes', `changelog-sync@${N}`, 'init'], repo, registry.env);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('run `npm install`, which writes it');
    const installed = await run('npm', ['install'], repo, registry.env);
    expect(installed.code, installed.stderr).toBe(0);
    // npm 11.16+ warns of an install script allowScripts does not name: none here.
    expect(installed.stderr).not.toMatch(/allowScripts/i);

    await git(repo, 'add', '-A');
    const files = (await git(repo, 'ls-files')).stdout.trim().split('\n');
    expect(files).toEqual(['.github/dependabot.yml', '.github/workflows/changelog-check.yml', '.github/workflows/changelog.yml', '.gitignore', 'changelog.config.json', 'content/entries/.gitkeep', 'package-lock.json', 'package.json']);
    expect(files.filter((f) => f.endsWith('.tgz') || f.startsWith('src/') || f.startsWith('dist/') || f.startsWith('node_modules/'))).toEqual([]);
    for (const name of ['changelog.yml', 'changelog-check.yml']) {
      const text = await readFile(join(repo, '.github/workflows', name), 'utf8');
      expect(text.trimEnd().split('\n').length, name).toBeLessThanOrEqual(40);
      expect(text).toMatch(new RegExp(`uses: changelog-sync/changelog-sync/\\.github/workflows/${name === 'changelog.yml' ? 'sync' : 'check'}\\.yml@v${N.split('.')[0]}$`, 'm'));
    }
    const dependabot = parseYaml(await readFile(join(repo, '.github/dependabot.yml'), 'utf8')) as { updates: Array<{ 'package-ecosystem': string }> };
    expect(dependabot.updates.map((u) => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm']);
    const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies).toEqual({ 'changelog-sync': `^${N}` });
    const lock = JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    expect(lock.packages['node_modules/changelog-sync']?.version).toBe(N);
  }, 600_000);

  it("the installed CLI's emulator: sync as the workflow runs it pulls the workspace and pushes a new entry; the site builds", async () => {
    emulator = spawn(join(repo, 'node_modules/.bin/changelog-sync'), ['emulator', '--port', '0', '--seed', 'demo'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    service = await new Promise<{ url: string; token: string; printed: string }>((resolve, reject) => {
      let out = '';
      emulator!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const url = /export CHANGELOG_BASE_URL=(\S+)/.exec(out)?.[1];
        const token = /export CHANGELOG_TOKEN=(\S+)/.exec(out)?.[1];
        if (url && token && /export CHANGELOG_TOKEN_API=/.test(out)) resolve({ url, token, printed: out });
      });
      emulator!.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${out}`)));
    });
    await writeFile(join(repo, 'content/entries/2026-11-30-team-adoption.md'), '---\ntitle: Team adoption\nis_published: false\npublish_at: 2026-11-30\n---\nOne command.\n');
    const outputs = join(base, 'github-output');
    await writeFile(outputs, '');
    const env = {
      ...registry.env,
      CHANGELOG_BASE_URL: service.url,
      CHANGELOG_TOKEN: service.token,
      CHANGELOG_SITE_URL: 'https://acme.github.io/acme-changelog/',
      CHANGELOG_SYNC_WORKFLOW_VERSION: N.split('.')[0]!,
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: outputs,
      GITHUB_STEP_SUMMARY: join(base, 'summary.md'),
    };
    const synced = await run('npx', ['--no-install', 'changelog-sync', 'sync', '--skip-build'], repo, env);
    expect(synced.code, synced.stdout + synced.stderr).toBe(0);
    expect(await readFile(outputs, 'utf8')).toContain('site_changed=true');
    const entries = (await readdir(join(repo, 'content/entries'))).filter((f) => f.endsWith('.md'));
    expect(entries.length).toBeGreaterThan(1);
    // Pushed: the service gave it an identifier, which push wrote back.
    expect(await readFile(join(repo, 'content/entries/2026-11-30-team-adoption.md'), 'utf8')).toMatch(/^identifier: [0-9a-f-]{36}$/m);

    const built = await run('npx', ['--no-install', 'changelog-sync', 'build'], repo, env);
    expect(built.code, built.stderr).toBe(0);
    expect(await readFile(join(repo, '_site/index.html'), 'utf8')).toContain('https://acme.github.io/acme-changelog/');
    expect((await git(repo, 'status', '--porcelain', '--', '_site', 'node_modules')).stdout).toBe('');
  }, 600_000);

  it("the package entry: `import { pull } from 'changelog-sync'` runs there, and its types check", async () => {
    expect(service, 'the emulator of the previous test').toBeDefined();
    await writeFile(join(repo, 'use-api.mjs'), "import { pull } from 'changelog-sync';\nconst r = await pull({ root: process.cwd() });\nconsole.log(JSON.stringify({ remote: r.remote, created: r.created.length }));\n");
    const used = await run(process.execPath, ['use-api.mjs'], repo, { ...registry.env, CHANGELOG_BASE_URL: service!.url, CHANGELOG_TOKEN: service!.token });
    expect(used.code, used.stderr).toBe(0);
    // After the sync the mirror is current: the API's pull finds every entry and creates none.
    expect(JSON.parse(used.stdout)).toEqual({ remote: (await readdir(join(repo, 'content/entries'))).filter((f) => f.endsWith('.md')).length, created: 0 });
    await writeFile(
      join(repo, 'use-api.ts'),
      "import { pull, type PullResult } from 'changelog-sync';\nexport const run = async (): Promise<number> => ((await pull({ root: '.', dryRun: true })) satisfies PullResult).created.length;\n// @ts-expect-error a pull result has no such field: the types are the real ones\nexport const wrong = (r: PullResult): number => r.nonexistent;\n",
    );
    const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--typeRoots', join(REPO, 'node_modules/@types'), '--types', 'node', 'use-api.ts'], repo, registry.env);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  }, 120_000);

  it("the installed CLI adds a product: init --workspace api makes the mirror the first product's, sync mirrors both, one site", async () => {
    const added = await run('npx', ['--no-install', 'changelog-sync', 'init', '--workspace', 'api', '--first', 'app'], repo, registry.env);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    expect(added.stdout).toContain('content/entries -> content/app/entries');
    const token = (key: string) => new RegExp(`export CHANGELOG_TOKEN_${key}=(\\S+)`).exec(service!.printed)?.[1] ?? '';
    const env = { ...registry.env, CHANGELOG_BASE_URL: service!.url, CHANGELOG_TOKEN_APP: token('APP'), CHANGELOG_TOKEN_API: token('API'), CHANGELOG_SITE_URL: 'https://acme.github.io/acme-changelog/' };
    const synced = await run('npx', ['--no-install', 'changelog-sync', 'sync'], repo, env);
    expect(synced.code, synced.stdout + synced.stderr).toBe(0);
    // The pushed file kept its identifier and was not sent again; the new product is mirrored beside it.
    expect(synced.stdout).toMatch(/^\[app\] Done: .*pushed 0/m);
    expect(await readFile(join(repo, 'content/app/entries/2026-11-30-team-adoption.md'), 'utf8')).toMatch(/^identifier: [0-9a-f-]{36}$/m);
    expect((await readdir(join(repo, 'content/api/entries'))).filter((f) => f.endsWith('.md')).length).toBeGreaterThan(0);
    expect(await readFile(join(repo, '_site/api/index.html'), 'utf8')).toContain('https://acme.github.io/acme-changelog/api/');
  }, 600_000);

  it('in an existing repository with a package.json, init adds changelog-sync to it and keeps the rest', async () => {
    const docs = join(base, 'docs');
    await mkdir(docs);
    await git(docs, 'init', '-q', '-b', 'trunk');
    const mine = { name: 'docs', version: '3.1.0', private: true, scripts: { test: 'node --test' }, dependencies: { semver: '7.8.6' } };
    await writeFile(join(docs, 'package.json'), `${JSON.stringify(mine, null, 2)}\n`);
    const init = await run('npx', ['--yes', `changelog-sync@${N}`, 'init'], docs, registry.env);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain(`~ package.json (added dependencies.changelog-sync ^${N}, allowScripts.sharp false)`);
    expect(JSON.parse(await readFile(join(docs, 'package.json'), 'utf8'))).toEqual({ ...mine, dependencies: { semver: '7.8.6', 'changelog-sync': `^${N}` }, allowScripts: { sharp: false } });
    expect(await readFile(join(docs, '.github/workflows/changelog.yml'), 'utf8')).toContain('branches: [trunk]');
    const locked = await run('npm', ['install', '--package-lock-only'], docs, registry.env);
    expect(locked.code, locked.stderr).toBe(0);
    expect(existsSync(join(docs, 'package-lock.json'))).toBe(true);
  }, 600_000);
});
