// The search index in two bundles (src/site/search/search-bundles.ts), through the real build
// (buildSite, Eleventy, Pagefind): a build with a build cache keeps the last full index
// (the archive) and indexes only the entries it does not hold into `pagefind/recent/`,
// which the search page merges; when the archive does not hold, everything is indexed
// into one bundle again. Correctness only: speed is the benchmark's.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite, type BuildOptions } from '../../../src/site/pipeline/build.js';
import { SEARCH_ARCHIVE_FILE } from '../../../src/site/search/search-archive.js';
import { startSearchIndex } from '../../../src/site/search/search-bundles.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, writeContent, type EntrySpec } from '../../helpers/site/site-fixture.js';

/** Every file of an index folder: path → bytes. */
async function indexFiles(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const d of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (d.isFile()) out.set(relative(dir, join(d.parentPath, d.name)), await readFile(join(d.parentPath, d.name)));
  }
  return out;
}

/** The URLs of the pages of one bundle (its fragments, not those of a bundle inside it). */
function bundleUrls(files: Map<string, Buffer>, bundle = ''): string[] {
  const urls: string[] = [];
  for (const [path, bytes] of files) {
    if (!path.startsWith(`${bundle}fragment/`)) continue;
    const text = gunzipSync(bytes).toString('utf8');
    urls.push((JSON.parse(text.slice(text.indexOf('{'))) as { url: string }).url);
  }
  return urls.sort();
}

/** The words of a bundle's index chunks (the terms a search looks up). */
function bundleText(files: Map<string, Buffer>, bundle = ''): string {
  return [...files]
    .filter(([path]) => path.startsWith(`${bundle}index/`))
    .map(([, bytes]) => gunzipSync(bytes).toString('latin1'))
    .join('\n');
}

const old: EntrySpec[] = dailyEntries(40, '2026-03-14').map((e, i) => (i === 7 ? { ...e, body: 'Archived entry about the wombat scheduler.\n' } : e));
const added: EntrySpec = { title: 'Quokka telemetry', date: '2026-03-15', body: 'The new quokka telemetry dashboard.\n' };

describe('the search index in two bundles, with a build cache', { timeout: 300_000 }, () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  let content: string;
  let options: BuildOptions;

  beforeAll(async () => {
    content = await writeContent(join(dir, 'site'), { entries: old });
    options = {
      contentDir: content,
      siteDir: PACKAGED_SITE_DIR,
      outputDir: join(dir, 'site/_site'),
      siteUrl: 'https://acme.github.io/repo/',
      root: join(dir, 'site'),
      today: '2026-03-16',
      cacheDir: join(dir, 'site/cache'),
    };
  });

  it('cold: one bundle, kept as the archive; warm after a new entry: the archive as it was and a bundle of the one new entry, merged by the search page', async () => {
    const cold = await buildSite(options);
    expect(cold.search).toEqual({ indexed: 40, archived: 0, bundles: ['/pagefind/'], reason: 'no search archive' });
    expect(cold.indexed).toBe(40);
    expect(existsSync(join(options.cacheDir!, SEARCH_ARCHIVE_FILE))).toBe(true);
    const coldIndex = await indexFiles(join(options.outputDir, 'pagefind'));
    const coldSearchPage = await readFile(join(options.outputDir, 'search/index.html'), 'utf8');
    expect(coldSearchPage).not.toContain('mergeIndex');

    await writeContent(join(dir, 'site'), { entries: [added] });
    const warm = await buildSite(options);
    expect(warm.search).toEqual({ indexed: 1, archived: 40, bundles: ['/pagefind/', '/pagefind/recent/'] });
    expect(warm.indexed).toBe(41);
    expect(warm.cache?.note).toBeUndefined();
    const warmIndex = await indexFiles(join(options.outputDir, 'pagefind'));
    // The archive's files, byte for byte, and the recent bundle beside them.
    for (const [path, bytes] of coldIndex) expect(warmIndex.get(path)?.equals(bytes), path).toBe(true);
    expect(bundleUrls(warmIndex, 'recent/')).toEqual(['/entries/quokka-telemetry/']);
    expect(bundleUrls(warmIndex)).toEqual(bundleUrls(coldIndex));
    expect(bundleUrls(warmIndex)).toContain('/entries/update-33/');
    expect(bundleText(warmIndex, 'recent/')).toContain('quokka');
    expect(bundleText(warmIndex)).toContain('wombat');
    expect(bundleText(warmIndex)).not.toContain('quokka');
    expect(warm.files).toContain('pagefind/recent/pagefind-entry.json');
    // The search page merges it, under the base path.
    const searchPage = await readFile(join(options.outputDir, 'search/index.html'), 'utf8');
    expect(searchPage).toContain('mergeIndex: [{ bundlePath: "/repo/pagefind/recent/" }]');
    expect(searchPage.replace(', mergeIndex: [{ bundlePath: "/repo/pagefind/recent/" }]', '')).toBe(coldSearchPage);

    // Nothing new since: the archive still holds, the recent entry is indexed again.
    const again = await buildSite(options);
    expect(again.search).toEqual({ indexed: 1, archived: 40, bundles: ['/pagefind/', '/pagefind/recent/'] });
  });

  it('indexes everything into one bundle again when an archived entry changes, and the recent bundle goes', async () => {
    expect(existsSync(join(options.outputDir, 'pagefind/recent'))).toBe(true);
    await writeContent(join(dir, 'site'), { entries: [{ ...old[3]!, body: 'An edited body.\n' }] });
    const changed = await buildSite(options);
    expect(changed.search).toEqual({ indexed: 41, archived: 0, bundles: ['/pagefind/'], reason: 'an archived entry changed' });
    expect(existsSync(join(options.outputDir, 'pagefind/recent'))).toBe(false);
    expect(changed.files.some((f) => f.startsWith('pagefind/recent/'))).toBe(false);
    expect(await readFile(join(options.outputDir, 'search/index.html'), 'utf8')).not.toContain('mergeIndex');
    // The index is the one of a build without a cache, file for file.
    const fresh = await buildSite({ ...options, cacheDir: undefined, outputDir: join(dir, 'site/_fresh') });
    expect(fresh.search).toBeUndefined();
    const [a, b] = await Promise.all([indexFiles(join(options.outputDir, 'pagefind')), indexFiles(join(dir, 'site/_fresh/pagefind'))]);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [path, bytes] of b) expect(a.get(path)?.equals(bytes), path).toBe(true);
    // That index is the new archive: a build with nothing new keeps it whole.
    const kept = await buildSite(options);
    expect(kept.search).toEqual({ indexed: 0, archived: 41, bundles: ['/pagefind/'] });
  });

  it('indexes everything when an archived entry is removed', async () => {
    await rm(join(content, 'entries', '2026-03-14-update-40.md'));
    const removed = await buildSite(options);
    expect(removed.search).toMatchObject({ indexed: 40, archived: 0, reason: 'an archived entry was removed or renamed' });
  });

  it('ignores a corrupt archive, with a note, and writes a good one', async () => {
    const file = join(options.cacheDir!, SEARCH_ARCHIVE_FILE);
    const bytes = await readFile(file);
    bytes[bytes.length - 10]! ^= 0xff;
    await writeFile(file, bytes);
    const corrupt = await buildSite(options);
    expect(corrupt.search).toMatchObject({ indexed: 40, archived: 0, reason: 'no search archive' });
    expect(corrupt.cache?.note).toContain('(its checksum does not match)');
    expect(corrupt.cache?.note).toContain(SEARCH_ARCHIVE_FILE);
    const next = await buildSite(options);
    expect(next.search).toMatchObject({ indexed: 0, archived: 40 });
    expect(next.cache?.note).toBeUndefined();
  });

  it("indexes everything into one bundle when a team's own search page does not merge a second one", async () => {
    const team = join(dir, 'team-site');
    await mkdir(team, { recursive: true });
    const page = await readFile(join(PACKAGED_SITE_DIR, 'search.njk'), 'utf8');
    await writeFile(join(team, 'search.njk'), page.replace(/\{% for bundle in changelogSyncOptions\.searchBundles %\}.*?\{% endfor %\}/, ''));
    const teamOptions = { ...options, siteDir: team, outputDir: join(dir, 'site/_team'), cacheDir: join(dir, 'site/team-cache') };
    expect((await buildSite(teamOptions)).search).toMatchObject({ indexed: 40 });
    await writeContent(join(dir, 'site'), { entries: [{ ...added, title: 'Quokka two', date: '2026-03-16' }] });
    const warm = await buildSite(teamOptions);
    expect(warm.search).toEqual({ indexed: 41, archived: 0, bundles: ['/pagefind/'], reason: 'the search page (search.njk) does not merge a second bundle (searchBundles)' });
    await rm(join(content, 'entries', '2026-03-16-quokka-two.md'));
  });

  it('asked for its bundles before any entry is added (a run started before its bodies), with no archive: none, and the archive then holds every entry', async () => {
    const cache = { dir: join(dir, 'early-cache'), fingerprint: 'early', siteDir: PACKAGED_SITE_DIR };
    await mkdir(cache.dir, { recursive: true });
    const entries = old.map((e, i) => ({ url: `/entries/early-${i}/`, date: e.date, displayDate: e.date, title: e.title, html: `<p>Entry ${i}</p>` }));
    const first = startSearchIndex(join(dir, 'early-1'), 'en', undefined, cache);
    expect(await first.mergeBundles()).toEqual([]);
    first.add(entries.slice(0, 10));
    first.add(entries.slice(10));
    expect((await first.finish()).segments).toMatchObject({ indexed: 40, archived: 0, bundles: ['/pagefind/'] });
    const second = startSearchIndex(join(dir, 'early-2'), 'en', undefined, cache);
    // With an archive the split needs every entry: asked before, it refuses rather than guess.
    await expect(second.mergeBundles()).rejects.toThrow(/once every entry is added/);
    second.add(entries);
    expect((await second.finish()).segments).toMatchObject({ indexed: 0, archived: 40 });
    expect(await second.mergeBundles()).toEqual([]);
    // A build that found no archive as it started (and started early on that) reads none,
    // even one in the folder now: one bundle, known at once, and every entry indexed.
    const third = startSearchIndex(join(dir, 'early-3'), 'en', undefined, { ...cache, archived: false });
    expect(await third.mergeBundles()).toEqual([]);
    third.add(entries);
    expect((await third.finish()).segments).toMatchObject({ indexed: 40, archived: 0, bundles: ['/pagefind/'] });
  });

  it('ignores the archive of other site options (another fingerprint)', async () => {
    const moved = await buildSite({ ...options, pathPrefix: '/elsewhere/' });
    expect(moved.search).toMatchObject({ indexed: 40, archived: 0 });
    // One line, naming what differed: not one per cache file.
    expect(moved.cache?.note).toMatch(/^the build cache \(.*\) was not used: it was made with another base path; the site was built without what it held$/);
  });
});
