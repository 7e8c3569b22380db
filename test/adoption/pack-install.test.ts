// The adoption path (issue 13), as a team adopting changelog-sync into an existing
// repository takes it: `npm pack` gives a package that installs into a fresh git
// repository; there `npx changelog-sync init` writes a workflow and config that work with
// the repository's own package.json and lock file; the workflow's commands (`npm ci`,
// `npx --no-install changelog-sync sync --skip-build`, `... build`) work against the
// package's own emulator.
//
// Hermetic: npm runs with --offline, from the cache `npm ci` filled. That cache holds every
// tarball of the lock file (found by their integrity), but not necessarily the registry
// metadata a plain `npm install ./changelog-sync-<version>.tgz` needs to resolve version
// ranges (ENOTCACHED). So the fresh repository starts with the lock file npm would write
// for it: this repository's dependency tree without its devDependencies (the exact
// versions the suite tests), with each tarball's registry URL, and npm keeps those URLs.
// The package entry too: a module of that repository imports the programmatic API by the
// package's name, runs `pull` against the emulator, and its TypeScript twin type-checks
// against the installed declarations (with this repository's compiler: the adopter has none).
// Run by .ci/run and `npm run test:adoption` (about a minute: too slow for `npm test`).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/process/cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; npm quiet and offline, no CHANGELOG_/GITHUB_ variables but those given. */
function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env };
  // `npm run` sets npm_* variables for its own package; the cache and npmrc files stay.
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry']);
  for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_') || (k.startsWith('npm_') && !keep.has(k))) delete env[k];
  Object.assign(
    env,
    { NO_COLOR: '1', npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_omit_lockfile_registry_resolved: 'false' },
    extra,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The lock file npm writes for a repository whose one dependency is the packed file. */
async function adopterLock(tgzName: string, tgzBytes: Buffer): Promise<object> {
  const lock = JSON.parse(await readFile(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const own = lock.packages['']!;
  const spec = `file:${tgzName}`;
  const packages: Record<string, unknown> = {
    '': { name: 'acme-docs', version: '1.0.0', dependencies: { 'changelog-sync': spec } },
    'node_modules/changelog-sync': {
      version: own.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(tgzBytes).digest('base64')}`,
      license: own.license,
      dependencies: own.dependencies,
      bin: own.bin,
      engines: own.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev) continue;
    const { devOptional, ...rest } = entry;
    // The registry's tarball URL, where the lock file leaves it out: no metadata is needed to find it.
    const name = (entry.name as string | undefined) ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const resolved = entry.resolved ?? (entry.link ? undefined : `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${String(entry.version)}.tgz`);
    packages[path] = { ...rest, ...(resolved ? { resolved } : {}), ...(devOptional ? { optional: true } : {}) };
  }
  return { name: 'acme-docs', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

describe('npm pack, install into a fresh repository, init, sync and build there', () => {
  let base: string;
  let cleanup: () => Promise<void>;
  let repo: string;
  let tgz: string;
  let files: string[];
  let emulator: ChildProcess | undefined;
  let service: Record<string, string> | undefined;

  beforeAll(async () => {
    ({ dir: base, cleanup } = await tempDir('changelog-adopt-'));
    // dist/ is built by `npm run test:adoption`; --ignore-scripts: no second tsc.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', base], REPO);
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tgz = info!.filename;
    files = info!.files.map((f) => f.path);
    repo = join(base, 'acme-docs');
    await run('git', ['init', '-q', repo], base);
  }, 120_000);
  afterAll(async () => {
    emulator?.kill();
    await cleanup();
  });

  it('packs what build and sync need at run time, and no sources or tests', () => {
    for (const f of ['dist/cli.js', 'dist/index.js', 'dist/index.d.ts', 'dist/site/build/plugin.js', 'dist/sync/pull/convert-worker.js', 'site/index.11ty.mjs', 'site/_includes/base.njk', 'site/widget.js', 'src/emulator/demo/seed.json', '.github/workflows/changelog.yml', '.github/workflows/changelog-check.yml', 'changelog.config.schema.json', 'package.json', 'README.md', 'docs/README.md', 'docs/sync.md']) {
      expect(files, f).toContain(f);
    }
    // The README's links into docs/ work in the installed package; the screenshots stay out.
    expect(files.filter((f) => f.startsWith('docs/') && !f.endsWith('.md'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('test/') || (f.startsWith('src/') && !f.startsWith('src/emulator/demo/')) || f.startsWith('node_modules/'))).toEqual([]);
  });

  it('installs offline without running prepare (no TypeScript there), and `init` writes what the workflows run', async () => {
    await writeFile(join(repo, 'package.json'), `${JSON.stringify({ name: 'acme-docs', version: '1.0.0', private: true }, null, 2)}\n`);
    const bytes = await readFile(join(base, tgz));
    await writeFile(join(repo, tgz), bytes);
    await writeFile(join(repo, 'package-lock.json'), `${JSON.stringify(await adopterLock(tgz, bytes), null, 2)}\n`);

    // Before the package is there, init says what is missing: the dependency.
    const before = await run(process.execPath, [join(REPO, 'dist/cli.js'), 'init', '--dry-run'], repo);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain('package.json does not list changelog-sync');

    const installed = await run('npm', ['install', '--offline', '--prefer-offline', `./${tgz}`], repo);
    expect(installed.code, installed.stderr).toBe(0);
    const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['changelog-sync']).toBe(`file:${tgz}`);
    const installedDir = join(repo, 'node_modules/changelog-sync');
    expect(existsSync(join(installedDir, 'dist/cli.js'))).toBe(true);
    // prepare (tsc) did not run: it would have failed, with no tsconfig and no TypeScript.
    expect(existsSync(join(installedDir, 'tsconfig.build.json'))).toBe(false);
    expect(existsSync(join(repo, 'node_modules/typescript'))).toBe(false);

    const init = await run('npx', ['--no-install', 'changelog-sync', 'init'], repo);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('+ .github/workflows/changelog.yml (created)');
    expect(init.stdout).not.toContain('The workflows also need');
    const workflow = await readFile(join(repo, '.github/workflows/changelog.yml'), 'utf8');
    expect(workflow).toContain('npm ci');
    expect(workflow).toContain('npx --no-install changelog-sync sync');
    expect(await readFile(join(repo, '.gitignore'), 'utf8')).toContain('node_modules/');
    expect(JSON.parse(await readFile(join(repo, 'changelog.config.json'), 'utf8'))).toMatchObject({ $schema: './node_modules/changelog-sync/changelog.config.schema.json' });
    expect(existsSync(join(repo, 'node_modules/changelog-sync/changelog.config.schema.json'))).toBe(true);
  }, 240_000);

  it('the workflow\'s steps work there: npm ci, sync against the emulator, build', async () => {
    // As the workflow's `npm ci` step, from the repository's own package.json and lock file.
    const ci = await run('npm', ['ci', '--offline', '--prefer-offline'], repo);
    expect(ci.code, ci.stderr).toBe(0);

    // The package's own emulator, seeded with the demo workspace.
    emulator = spawn(join(repo, 'node_modules/.bin/changelog-sync'), ['emulator', '--port', '0', '--seed', 'demo'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    const listening = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      let out = '';
      emulator!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const url = /export CHANGELOG_BASE_URL=(\S+)/.exec(out)?.[1];
        const token = /export CHANGELOG_TOKEN=(\S+)/.exec(out)?.[1];
        if (url && token) resolve({ url, token });
      });
      emulator!.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${out}`)));
    });
    // As in the workflow: a GitHub Actions step, with a step-output file for site_changed.
    const outputs = join(base, 'github-output');
    await writeFile(outputs, '');
    const env = {
      CHANGELOG_BASE_URL: listening.url,
      CHANGELOG_TOKEN: listening.token,
      CHANGELOG_SITE_URL: 'https://acme.github.io/acme-docs/',
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: outputs,
    };

    service = { CHANGELOG_BASE_URL: listening.url, CHANGELOG_TOKEN: listening.token };

    const synced = await run('npx', ['--no-install', 'changelog-sync', 'sync', '--skip-build'], repo, env);
    expect(synced.code, synced.stderr).toBe(0);
    expect(await readFile(outputs, 'utf8')).toContain('site_changed=true');
    const entries = (await readdir(join(repo, 'content/entries'))).filter((f) => f.endsWith('.md'));
    expect(entries.length).toBeGreaterThan(0);
    expect(existsSync(join(repo, '.changelog/state.json'))).toBe(true);

    const built = await run('npx', ['--no-install', 'changelog-sync', 'build'], repo, env);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toMatch(/^Built \d+ pages/m);
    expect(await readFile(join(repo, '_site/index.html'), 'utf8')).toContain('https://acme.github.io/acme-docs/');
    expect(existsSync(join(repo, '_site/pagefind/pagefind.js'))).toBe(true);
  }, 240_000);

  it('the package entry: `import { pull } from \'changelog-sync\'` runs there, and its types check', async () => {
    expect(service, 'the emulator of the previous test').toBeDefined();
    // After the workflow's sync: the mirror is current, so this pull writes nothing.
    await writeFile(
      join(repo, 'use-api.mjs'),
      [
        "import { pull, ChangelogSyncError } from 'changelog-sync';",
        'const result = await pull({ root: process.cwd() });',
        'const wrong = await pull({ root: process.cwd(), token: "not-the-token" }).catch((e) => e);',
        'console.log(JSON.stringify({ remote: result.remote, unchanged: result.unchanged, created: result.created.length, writes: result.writes.length, wrong: wrong instanceof ChangelogSyncError ? wrong.code : String(wrong) }));',
        '',
      ].join('\n'),
    );
    const used = await run(process.execPath, ['use-api.mjs'], repo, service);
    expect(used.code, used.stderr).toBe(0);
    const out = JSON.parse(used.stdout) as { remote: number; unchanged: number; created: number; writes: number; wrong: string };
    const mirrored = (await readdir(join(repo, 'content/entries'))).filter((f) => f.endsWith('.md')).length;
    expect(out).toEqual({ remote: mirrored, unchanged: mirrored, created: 0, writes: 0, wrong: 'E_AUTH' });

    // The declarations resolve through `exports` (the `types` condition) and type-check a caller.
    await writeFile(
      join(repo, 'use-api.ts'),
      [
        "import { build, pull, push, startEmulator, status, type ChangelogSyncError, type ErrorCode, type PullResult } from 'changelog-sync';",
        'export async function run(token: string): Promise<number> {',
        "  const pulled: PullResult = await pull({ root: '.', token, dryRun: true });",
        "  const code: ErrorCode = 'E_AUTH';",
        "  const emu = await startEmulator({ port: 0 });",
        '  await emu.close();',
        "  const failed: ChangelogSyncError | undefined = undefined;",
        "  void [push, status, build, code, failed];",
        '  return pulled.created.length;',
        '}',
        "// @ts-expect-error a pull result has no such field: the types are the real ones, not any",
        "export const wrong = (r: PullResult): number => r.nonexistent;",
        '',
      ].join('\n'),
    );
    const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
    const typeRoots = join(REPO, 'node_modules/@types');
    const checked = await run(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--typeRoots', typeRoots, '--types', 'node', 'use-api.ts'], repo);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  }, 240_000);
});
