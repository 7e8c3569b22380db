// Eleventy's run started on the site data before its bodies are rendered (src/site/build/
// build-early.ts: a build with no page pack to take pages from, Eleventy on its worker thread,
// compiled code only), through the real CLI: it starts before the data's end, and writes the
// bytes of the build that starts it once the data is complete (a build whose cache folder
// holds a page pack, here one it cannot use), at `/` and under a base path; a first build with
// a build cache (an empty cache folder) starts early too, and the next build takes every page,
// body and search result from the cache it saved (test/e2e/site/large-site-under-base-path.test.ts
// adds an entry to such a cache: the recent search bundle); a build whose data load fails
// after the run started (a failpoint that throws EIO as the bodies render) reports that error
// and ends: no thread left waiting for a body. The channel itself is
// test/core/sync-channel.test.ts.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATE_THRESHOLD } from '../../../src/site/build/eleventy-run.js';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { differences } from '../../helpers/site/page-cache-project.js';
import { dailyEntries, writeContent } from '../../helpers/site/site-fixture.js';

interface Built {
  pages: number;
  indexed: number;
  timings: { dataMs: number; renderMs: number };
  cache?: { hits: number; rendered: number; pages: { rendered: number; reused: number } };
  search?: { indexed: number; archived: number; bundles: string[] };
}

describe('Eleventy started before the bodies, through the CLI', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  const build = async (out: string, siteUrl: string, args: string[], env: Record<string, string> = {}) => {
    const r = await runCli(['--json', 'build', ...args], { cwd: dir, env: { CHANGELOG_SITE_URL: siteUrl, CHANGELOG_OUTPUT_DIR: join(dir, out), GITHUB_ACTIONS: undefined, ...env }, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Built;
  };

  it.each([
    ['at /', 'https://changelog.example.com/'],
    ['under /changelog/', 'https://acme.github.io/changelog/'],
  ])('%s: starts before the data is complete and writes the bytes of a build that starts after it', async (_, siteUrl) => {
    await writeContent(dir, { entries: dailyEntries(ISOLATE_THRESHOLD, '2026-03-14', (i) => (i % 3 ? ['New'] : ['Fix'])) });
    const early = await build('early', siteUrl, ['--no-cache']);
    // A page pack in the cache folder keeps the run until the data is complete, even one of no use.
    await mkdir(join(dir, 'packed-cache'), { recursive: true });
    await writeFile(join(dir, 'packed-cache', 'pages.pack'), 'not a page pack\n');
    const late = await build('late', siteUrl, [], { CHANGELOG_BUILD_CACHE: join(dir, 'packed-cache') });
    expect(early.timings.renderMs).toBeLessThan(early.timings.dataMs);
    expect(late.timings.renderMs).toBeGreaterThanOrEqual(late.timings.dataMs);
    expect({ pages: early.pages, indexed: early.indexed }).toEqual({ pages: late.pages, indexed: late.indexed });
    expect(early.indexed).toBe(ISOLATE_THRESHOLD);
    expect(await differences(join(dir, 'early'), join(dir, 'late'))).toEqual([]);
  }, 300_000);

  it('a first build with a build cache starts early, and the next one takes every page from what it saved', async () => {
    await writeContent(dir, { entries: dailyEntries(ISOLATE_THRESHOLD, '2026-03-14', (i) => (i % 2 ? ['New'] : ['Fix'])) });
    const cache = { CHANGELOG_BUILD_CACHE: join(dir, 'new-cache') };
    const siteUrl = 'https://changelog.example.com/';
    const first = await build('first', siteUrl, [], cache);
    expect(first.timings.renderMs).toBeLessThan(first.timings.dataMs);
    expect(first.cache).toMatchObject({ hits: 0, rendered: ISOLATE_THRESHOLD, pages: { reused: 0 } });
    const second = await build('second', siteUrl, [], cache);
    expect(second.cache).toMatchObject({ hits: ISOLATE_THRESHOLD, rendered: 0, pages: { rendered: 0, reused: first.cache!.pages.rendered } });
    // The search archive it saved holds every entry: the second build indexes none.
    expect(second.search).toMatchObject({ indexed: 0, archived: ISOLATE_THRESHOLD, bundles: ['/pagefind/'] });
    expect(first.cache!.pages.rendered).toBeGreaterThan(ISOLATE_THRESHOLD);
    expect(await differences(join(dir, 'first'), join(dir, 'second'))).toEqual([]);
    const uncached = await build('uncached', siteUrl, ['--no-cache']);
    expect(uncached.pages).toBe(first.pages);
    expect(await differences(join(dir, 'first'), join(dir, 'uncached'))).toEqual([]);
  }, 300_000);

  it('a data load that fails after the run started reports its error and ends', async () => {
    await writeContent(dir, { entries: dailyEntries(ISOLATE_THRESHOLD, '2026-03-14', () => ['New']) });
    const r = await runCli(['build', '--no-cache'], {
      cwd: dir,
      env: { CHANGELOG_SITE_URL: 'https://changelog.example.com/', CHANGELOG_FAILPOINT: 'build:mid-bodies:2', CHANGELOG_FAILPOINT_ERRNO: 'EIO', GITHUB_ACTIONS: undefined },
      timeoutMs: 60_000,
    });
    expect(r.signal, 'the build hung and was killed').toBeNull();
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/EIO: i\/o error/);
  }, 90_000);
});
