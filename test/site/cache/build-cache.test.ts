// The build cache (src/site/cache/build-cache.ts), through the build command and the real
// Eleventy build: a build that takes its bodies from the cache writes the same bytes as one
// that renders them all; anything that may change a body's HTML (the body, the templates, the
// base path, the tool's version) makes the cache unused; a corrupt cache is ignored with a
// note. The command runs in this process (helpers/process/command.ts: a build is a fraction of a
// second there, over 2 s as a process). The tool's version is the installed tool's: that case
// runs the real CLI, copied, in test/e2e/site/build-cache-tool-version.test.ts. Correctness only:
// speed is the benchmark's (`npm run bench -- build`).
import { cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../../../src/site/cache/build-cache.js';
import { ENTRY_MEMO_FILE } from '../../../src/site/cache/entry-memo.js';
import { DEFAULT_CACHE_DIR, PACKAGE_ROOT } from '../../../src/core/config.js';
import { buildCommand, type BuildCommandOptions } from '../../../src/cli/commands/build.js';
import { useTempDir, type CliResult } from '../../helpers/process/cli.js';
import { runCommand } from '../../helpers/process/command.js';
import { writeBuildCacheContent } from '../../helpers/site/site-fixture.js';

const SITE_URL = 'https://acme.github.io/changelog/';

interface Built {
  code: number | null;
  stderr: string;
  cache?: { dir: string; hits: number; rendered: number; note?: string; pages?: { rendered: number; reused: number; note?: string }; files?: { parsed: number; reused: number } };
}

/** Every file of a built site, by path relative to it. */
async function siteFiles(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const d of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (d.isFile()) out.set(relative(dir, join(d.parentPath, d.name)), await readFile(join(d.parentPath, d.name)));
  }
  return out;
}

/** The paths whose bytes differ between two sites (or that only one has). */
async function differences(a: string, b: string): Promise<string[]> {
  const [x, y] = await Promise.all([siteFiles(a), siteFiles(b)]);
  const names = new Set([...x.keys(), ...y.keys()]);
  return [...names].filter((n) => !x.get(n) || !y.get(n) || !x.get(n)!.equals(y.get(n)!)).sort();
}

// Each test runs several builds: a bound for a busy machine.
describe('the build cache, through the build command', { timeout: 300_000 }, () => {
  let dir: string;
  let outputs = 0;
  useTempDir((d) => (dir = d));

  /** The result of `changelog-sync --json build` and its output folder. */
  function built(r: CliResult, out: string): Built & { out: string } {
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as { cache?: Built['cache'] };
    return { code: r.code, stderr: r.stderr, cache: json.cache, out };
  }
  /** `changelog-sync --json build` (buildCommand in this process) into a new output folder; the folder and the result. */
  async function build(options: BuildCommandOptions = {}, env: Record<string, string> = {}): Promise<Built & { out: string }> {
    const out = join(dir, `out-${++outputs}`);
    const vars = { CHANGELOG_SITE_URL: SITE_URL, CHANGELOG_OUTPUT_DIR: out, ...env };
    return built(await runCommand((config, reporter) => buildCommand(config, reporter, options), { cwd: dir, env: vars, json: true }), out);
  }
  const cacheFile = () => join(dir, DEFAULT_CACHE_DIR, CACHE_FILE);

  beforeAll(async () => {
    await writeBuildCacheContent(dir);
  });

  it('a build from the cache writes the same bytes as one that renders every body', async () => {
    const cold = await build({ noCache: true });
    expect(cold.cache).toBeUndefined();
    expect(existsSync(cacheFile())).toBe(false); // --no-cache neither reads nor writes it
    const first = await build();
    expect(first.cache).toMatchObject({ hits: 0, rendered: 7 });
    expect(first.cache?.note).toBeUndefined();
    const warm = await build();
    expect(warm.cache).toMatchObject({ hits: 7, rendered: 0 });
    // The page cache: 7 entry pages, 1 index page, the pages of New and Fix.
    expect(first.cache?.pages).toEqual({ rendered: 10, reused: 0 });
    expect(warm.cache?.pages).toEqual({ rendered: 0, reused: 10 });
    expect(await differences(cold.out, first.out)).toEqual([]);
    expect(await differences(cold.out, warm.out)).toEqual([]);
    // Without --json, the summary says it too.
    const text = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir, env: { CHANGELOG_SITE_URL: SITE_URL, CHANGELOG_OUTPUT_DIR: join(dir, `out-${++outputs}`) } });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Built 1\d pages \(\d+ files, 7 entries searchable\) into .* in [\d.]+s; 0 pages rendered, 10 from the page cache$/m);
  });

  it('a changed entry is rendered again, the others come from the cache, and the site is the cold one', async () => {
    await build(); // the cache of the content as it is
    const file = join(dir, 'content/entries/2026-03-15-code-pictures-and-links.md');
    const before = await readFile(file, 'utf8');
    await writeFile(file, before.replace('const answer = 42;', 'const answer = 43;'));
    try {
      const warm = await build();
      expect(warm.cache).toMatchObject({ hits: 6, rendered: 1 });
      const page = await readFile(join(warm.out, 'entries/code-pictures-and-links/index.html'), 'utf8');
      expect(page).toContain('43');
      expect(page).not.toContain('answer = 42');
      const cold = await build({ noCache: true });
      expect(await differences(cold.out, warm.out)).toEqual([]);
    } finally {
      await writeFile(file, before);
    }
  });

  it('another template set or another base path: the cache is not used', async () => {
    await build();
    // A team's template over the packaged ones.
    await mkdir(join(dir, 'site/_includes'), { recursive: true });
    await cp(join(PACKAGE_ROOT, 'site/_includes/footer.njk'), join(dir, 'site/_includes/footer.njk'));
    await writeFile(join(dir, 'site/_includes/footer.njk'), `${await readFile(join(dir, 'site/_includes/footer.njk'), 'utf8')}<!-- team -->\n`);
    const templated = await build();
    expect(templated.cache).toMatchObject({ hits: 0, rendered: 7 });
    expect(templated.cache?.note).toMatch(/other templates/);
    expect(templated.stderr).toContain('was not used');
    expect((await build()).cache).toMatchObject({ hits: 7, rendered: 0 });

    // Another base path (the site URL's path).
    const moved = await build({}, { CHANGELOG_SITE_URL: 'https://acme.github.io/other/' });
    expect(moved.cache).toMatchObject({ hits: 0, rendered: 7 });
    const page = await readFile(join(moved.out, 'index.html'), 'utf8');
    expect(page).toContain('href="/other/feed.xml"');
    expect(page).not.toContain('/changelog/');
    expect((await build()).cache).toMatchObject({ hits: 0, rendered: 7 }); // and back: the other one's cache
  });

  it('a corrupt or cut-short cache is ignored with a note, and the site is the cold one', async () => {
    await build();
    const text = await readFile(cacheFile(), 'utf8');
    const cold = await build({ noCache: true });
    // Cut short, as a killed write without the atomic rename would leave it.
    await writeFile(cacheFile(), text.slice(0, Math.floor(text.length / 2)));
    const cut = await build();
    expect(cut.cache).toMatchObject({ hits: 0, rendered: 7 });
    expect(cut.cache?.note).toMatch(/corrupt or incomplete/);
    expect(cut.stderr).toMatch(/build cache .* was not used: it is corrupt or incomplete/);
    expect(await differences(cold.out, cut.out)).toEqual([]);
    // The same length, one body changed: the checksum finds it; a stale body is never served.
    const at = text.indexOf('answer');
    await writeFile(cacheFile(), `${text.slice(0, at)}ANSWER${text.slice(at + 6)}`);
    const flipped = await build();
    expect(flipped.cache).toMatchObject({ hits: 0, rendered: 7 });
    expect(flipped.cache?.note).toMatch(/checksum/);
    expect(await differences(cold.out, flipped.out)).toEqual([]);
    // Not JSON at all.
    await writeFile(cacheFile(), 'not a cache');
    expect((await build()).cache?.note).toMatch(/corrupt/);
    // Each of those builds wrote a good cache again.
    expect((await build()).cache).toMatchObject({ hits: 7, rendered: 0 });
  });

  it('the entry memo: an unchanged file is not parsed again, a changed one is, a corrupt memo is ignored with a note', async () => {
    await build();
    const memoFile = join(dir, DEFAULT_CACHE_DIR, ENTRY_MEMO_FILE);
    const warm = await build();
    expect(warm.cache?.files).toEqual({ parsed: 0, reused: 7 });
    const file = join(dir, 'content/entries/2026-03-15-code-pictures-and-links.md');
    const before = await readFile(file, 'utf8');
    // A changed title: that file is parsed again, and the page says the new title.
    await writeFile(file, before.replace('title: Code, pictures and links', 'title: Code, pictures and more links'));
    try {
      const changed = await build();
      expect(changed.cache?.files).toEqual({ parsed: 1, reused: 6 });
      expect(await readFile(join(changed.out, 'entries/code-pictures-and-links/index.html'), 'utf8')).toContain('Code, pictures and more links');
      expect(await differences((await build({ noCache: true })).out, changed.out)).toEqual([]);
    } finally {
      await writeFile(file, before);
    }
    // Corrupt (one title changed, the same length): never served; the bodies' cache still is.
    await build();
    const text = await readFile(memoFile, 'utf8');
    expect(text).toContain('Update 3');
    await writeFile(memoFile, text.replace('Update 3', 'Update 9'));
    const flipped = await build();
    expect(flipped.cache?.files).toEqual({ parsed: 7, reused: 0 });
    expect(flipped.cache?.note).toMatch(/entry memo .* was not used: it is corrupt or incomplete \(its checksum does not match\)/);
    expect(flipped.cache).toMatchObject({ hits: 7, rendered: 0 });
    expect(await differences((await build({ noCache: true })).out, flipped.out)).toEqual([]);
    expect((await build()).cache?.files).toEqual({ parsed: 0, reused: 7 });
  });
});
