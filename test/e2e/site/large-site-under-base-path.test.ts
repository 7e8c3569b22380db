// A mirror large enough for Eleventy on its worker thread (src/site/pipeline/eleventy-thread.ts,
// compiled code only): the real CLI builds THREAD_THRESHOLD entries for
// https://acme.github.io/changelog/, and the site, served under /changelog/ only, has every
// page and no broken link, asset or search result (test/helpers/browser/crawl.ts). One full build and
// crawl of a site that size, and one of the warm build after a new entry (the page cache's
// pages, the entry memo, the search archive and its recent bundle),
// crawled the same way; the base path on small sites is tested in
// test/site/render/base-path.test.ts.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { THREAD_THRESHOLD } from '../../../src/site/pipeline/eleventy-thread.js';
import { PAGE_SIZE } from '../../../src/site/data/site-model.js';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { crawlServedUnbroken } from '../../helpers/browser/crawl.js';
import { dailyEntries, writeContent } from '../../helpers/site/site-fixture.js';

const SITE_URL = 'https://acme.github.io/changelog/';
const PREFIX = '/changelog/';
/** Entries of the mirror: a cold build runs Eleventy on its thread. */
const ENTRIES = THREAD_THRESHOLD;

describe(`a mirror of ${ENTRIES} entries (Eleventy on its thread when cold), built by the CLI, served under /changelog/ only`, () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it(`writes every page of ${ENTRIES} entries and none of its links is broken`, async () => {
    await writeContent(dir, { entries: dailyEntries(ENTRIES, '2026-03-14', (i) => (i % 3 ? ['New'] : ['Fix'])) });
    const r = await runCli(['--json', 'build', '--no-cache'], { cwd: dir, env: { CHANGELOG_SITE_URL: SITE_URL, GITHUB_ACTIONS: undefined }, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    const crawl = await crawlServedUnbroken(join(dir, '_site'), PREFIX, SITE_URL);
    expect(crawl.paths.filter((p) => /^\/changelog\/entries\/[^/]+\/$/.test(p))).toHaveLength(ENTRIES);
    expect(crawl.paths).toContain(`/changelog/page/${ENTRIES / PAGE_SIZE}/`);
    expect(crawl.searchResults).toBe(ENTRIES);
  }, 300_000);

  it('a warm build after one new entry, from the build cache into a new folder, serves every page and link under /changelog/ too', async () => {
    await writeContent(dir, { entries: dailyEntries(ENTRIES, '2026-03-14', (i) => (i % 3 ? ['New'] : ['Fix'])) });
    const build = async (out: string) => {
      const r = await runCli(['--json', 'build'], { cwd: dir, env: { CHANGELOG_SITE_URL: SITE_URL, CHANGELOG_OUTPUT_DIR: join(dir, out), GITHUB_ACTIONS: undefined }, timeoutMs: 240_000 });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { cache?: { pages: { rendered: number; reused: number }; files: { parsed: number; reused: number } }; search?: { bundles: string[] } };
    };
    await build('cold');
    await writeFile(join(dir, 'content/entries/2026-03-15-a-new-entry.md'), '---\ntitle: A new entry\nslug: a-new-entry\npublish_at: 2026-03-15\nstatus: published\ntags: [Fix]\n---\n\nSee [the first update](/entries/update-1/).\n');
    const warm = await build('warm');
    expect(warm.cache?.pages.reused).toBeGreaterThan(ENTRIES - 10);
    expect(warm.cache?.files).toEqual({ parsed: 1, reused: ENTRIES });
    expect(warm.search?.bundles).toEqual(['/pagefind/', '/pagefind/recent/']);
    const crawl = await crawlServedUnbroken(join(dir, 'warm'), PREFIX, SITE_URL);
    expect(crawl.paths.filter((p) => /^\/changelog\/entries\/[^/]+\/$/.test(p))).toHaveLength(ENTRIES + 1);
    expect(crawl.paths).toContain('/changelog/entries/a-new-entry/');
    expect(crawl.searchResults).toBe(ENTRIES + 1);
  }, 300_000);
});
