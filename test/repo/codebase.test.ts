// The codebase's shape (docs/architecture.md "Conventions"): no file of code in src/ or
// test/ over 400 lines, no folder of either with more than 20 files, no two source files of the
// same name, every folder of src/ in the tree that opens docs/architecture.md,
// runtime dependencies as caret ranges that the lock file pins, an install-script decision
// (package.json's allowScripts) for every dependency that has one, and a README that holds
// what a user needs and no more (speed figures and test-only settings live in docs/). Lint,
// knip and the layer rule (test/repo/layers.test.ts) run in .ci/run.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { satisfies } from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 400;
/** The README's sections a user needs, by their headings: trying it, adopting it, setting it up, using it. */
const REQUIRED_README_SECTIONS = ['Quick start', 'Using it with your workspace', 'Configuration', 'Commands', 'The entry file', 'Running it in GitHub Actions', 'The site'];
/** A speed figure: a ratio (0.33-0.38x), a duration (1.2 s, 300 ms) or a memory size of a run (1.3 GB). */
const SPEED_FIGURE = /\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?x\b|\b\d+(?:\.\d+)?\s?(?:ms|s|GB)\b/;
/** Settings that exist for the tests and benchmarks (a compressed emulator, crash tests). */
const TEST_ONLY_SETTINGS = ['CHANGELOG_RATE_WINDOW_MS', 'CHANGELOG_FAILPOINT'];

/** A path inside a `node_modules/` folder: installed packages, not the project's code. */
const isInstalled = (path: string): boolean => path.split(sep).includes('node_modules');

async function sourceFiles(): Promise<string[]> {
  const names = await readdir(join(ROOT, 'src'), { recursive: true });
  return names.filter((n) => n.endsWith('.ts')).sort();
}

describe('codebase shape', () => {
  it(`no file of code under src/ or test/ is over ${MAX_LINES} lines`, async () => {
    // Installed packages are not ours (the local registry's Verdaccio installs under test/helpers/registry/).
    const files = [...(await sourceFiles()).map((f) => join('src', f)), ...(await readdir(join(ROOT, 'test'), { recursive: true })).filter((f) => /\.(ts|mjs)$/.test(f) && !isInstalled(f)).map((f) => join('test', f))];
    expect(files.length).toBeGreaterThan(150);
    const over: string[] = [];
    for (const f of files) {
      const lines = (await readFile(join(ROOT, f), 'utf8')).split('\n').length - 1;
      if (lines > MAX_LINES) over.push(`${f}: ${lines}`);
    }
    expect(over).toEqual([]);
  });

  it('no folder under src/ or test/ holds more than 20 files (a folder is a pipeline stage, a layer or what a test sets up)', async () => {
    const perFolder = new Map<string, number>();
    for (const top of ['src', 'test']) {
      for (const e of await readdir(join(ROOT, top), { recursive: true, withFileTypes: true })) if (e.isFile() && !isInstalled(e.parentPath)) perFolder.set(e.parentPath, (perFolder.get(e.parentPath) ?? 0) + 1);
    }
    expect(perFolder.size).toBeGreaterThan(40);
    const crowded = [...perFolder].filter(([, n]) => n > 20).map(([dir, n]) => `${relative(ROOT, dir)}: ${n}`);
    expect(crowded).toEqual([]);
  });

  it('no two files under src/ share a name, but a command and the one module it calls', async () => {
    const byName = new Map<string, string[]>();
    for (const f of await sourceFiles()) byName.set(basename(f), [...(byName.get(basename(f)) ?? []), f]);
    // `cli/commands/pull.ts` is the `pull` command over `sync/pull/pull.ts` (changesets' layout): a pair.
    const commandPair = (paths: string[]) => paths.length === 2 && paths.filter((p) => p.startsWith('cli/')).length === 1;
    const twice = [...byName.values()].filter((paths) => paths.length > 1 && !commandPair(paths));
    expect(twice).toEqual([]);
    expect([...byName.values()].filter(commandPair).length).toBeGreaterThan(0);
  });

  it('every folder under src/ has its line in the tree that opens docs/architecture.md', async () => {
    const doc = await readFile(join(ROOT, 'docs/architecture.md'), 'utf8');
    const tree = /## The tree\n[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const listed = new Set(tree.split('\n').map((line) => /^(src\/\S*)\s/.exec(line)?.[1]));
    const entries = await readdir(join(ROOT, 'src'), { recursive: true, withFileTypes: true });
    const folders = ['src/', ...entries.filter((e) => e.isDirectory()).map((e) => `${relative(ROOT, join(e.parentPath, e.name)).split(sep).join('/')}/`)];
    expect(folders.length).toBeGreaterThan(20);
    expect(folders.filter((f) => !listed.has(f)).sort()).toEqual([]);
    // And no line for a folder that is gone.
    expect([...listed].filter((f) => f !== undefined && !folders.includes(f))).toEqual([]);
  });

  it('runtime dependencies are caret ranges, and the lock file pins each to one version in its range', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
    };
    const deps = Object.entries(pkg.dependencies);
    expect(deps.length).toBeGreaterThan(10);
    expect(deps.filter(([, range]) => !/^\^\d+\.\d+\.\d+$/.test(range))).toEqual([]);
    expect(lock.packages['']?.dependencies).toEqual(pkg.dependencies);
    for (const [name, range] of deps) {
      const pinned = lock.packages[`node_modules/${name}`]?.version ?? '';
      expect(pinned, name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(satisfies(pinned, range), `${name}: ${pinned} is not in ${range}`).toBe(true);
    }
  });

  it("every installed package with an install script has its decision in package.json's allowScripts (npm 12 skips the rest)", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript)
      .map(([path, p]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: p.version }));
    expect(withScripts.map((p) => p.name)).toContain('sharp');
    const decided = new Set(Object.keys(pkg.allowScripts ?? {}));
    expect(withScripts.filter((p) => !decided.has(p.name) && !decided.has(`${p.name}@${p.version}`))).toEqual([]);
  });

  it('the README holds what a user needs: its sections, every docs/ page it links to, and no speed figures or test-only settings', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const headings = [...readme.matchAll(/^##+ (.+)$/gm)].map((m) => m[1]!.trim());
    expect(REQUIRED_README_SECTIONS.filter((h) => !headings.includes(h))).toEqual([]);
    const links = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(3);
    for (const link of new Set(links)) expect((await stat(join(ROOT, link))).isFile(), link).toBe(true);
    // Speed figures move with the host and the Node version: docs/benchmarks.md has them with their method.
    const lines = readme.split('\n');
    expect(lines.filter((line) => SPEED_FIGURE.test(line))).toEqual([]);
    // Settings for tests and benchmarks (docs/development.md) are not a user's.
    expect(lines.filter((line) => TEST_ONLY_SETTINGS.some((name) => line.includes(name)) || /\bonly for\b.*\btests?\b/i.test(line))).toEqual([]);
  });
});
