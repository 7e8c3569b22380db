// One site of several products (the build's `sections`, docs/site.md#several-products): each
// product's section under /<key>/, the combined home page and feeds at the root, search with a
// product filter, a latest.json per product; built for a base path, served under it only and
// crawled. And a one-workspace site grown to two keeps every URL it published, its feeds' item
// ids unchanged (docs/site.md#urls-never-move).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAtomFeed } from 'feedsmith';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite, type BuildOptions } from '../../../src/site/pipeline/build.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { crawlServedUnbroken, pagefindResults } from '../../helpers/browser/crawl.js';
import { dailyEntries, pngHeader, readSite, WORKSPACE, writeContent } from '../../helpers/site/site-fixture.js';
import { feedIds, filesOf } from '../../helpers/site/site-files.js';

const SITE_URL = 'https://acme.github.io/changelog/';
const PREFIX = '/changelog/';

describe('a site of two products, served under a base path', () => {
  let dir: string;
  let one: string;
  let two: string;
  let app: string;
  let api: string;
  useTempDir((d) => (dir = d));

  const build = (outputDir: string, options: Partial<BuildOptions>) =>
    buildSite({ contentDir: app, siteDir: PACKAGED_SITE_DIR, outputDir, siteUrl: SITE_URL, root: dir, today: '2026-03-15', ...options });

  beforeAll(async () => {
    // "app": 24 daily updates tagged New or Fix (a second index page, tag pages), and "Shared" with an image.
    app = await writeContent(join(dir, 'app'), {
      workspace: { ...WORKSPACE, name: 'Lumen App', theme: 'commit' },
      entries: [
        ...dailyEntries(24, '2026-03-13', (i) => (i % 2 ? ['New'] : ['Fix'])).map((e, i) => ({ ...e, identifier: `a0000000-0000-4000-8000-${String(i).padStart(12, '0')}` })),
        { title: 'Shared', date: '2026-03-14', tags: ['New'], identifier: 'a0000000-0000-4000-8000-100000000000', body: 'A chart:\n\n![Chart](/images/chart.png)\n' },
      ],
      images: { 'chart.png': pngHeader(640, 360) },
    });
    // "api": its own theme and logo, an entry under the same slug, and a tag "app" does not have.
    api = await writeContent(join(dir, 'api'), {
      workspace: { ...WORKSPACE, identifier: '4d2e9b63-1e8f-4d2c-8b5a-7c3f9e0d2b18', name: 'Lumen API', theme: 'paper', logo_url: 'https://acme.example.com/api.png' },
      tags: [{ name: 'Breaking', slug: 'breaking', bg_color: '#fee2e2', text_color: '#991b1b' }],
      entries: [
        { title: 'Shared', date: '2026-03-15', tags: ['Breaking'], identifier: 'b0000000-0000-4000-8000-000000000001', body: 'The API side of it, the same chart:\n\n![Chart](/images/chart.png)\n' },
        { title: 'Rate limits', date: '2026-03-01', identifier: 'b0000000-0000-4000-8000-000000000002' },
      ],
      // The same image in both products' mirrors: published once.
      images: { 'chart.png': pngHeader(640, 360) },
    });
    one = join(dir, '_one');
    two = join(dir, '_two');
    await build(one, {});
    // The content directory holds the sections' mirrors, none of its own (as content/<key>/).
    await build(two, { contentDir: dir, sections: [{ key: 'app', contentDir: app }, { key: 'api', title: 'Lumen API (v2)', contentDir: api }] });
  });

  it('crawls without a broken link: every section, the combined pages, feeds, search and redirects', async () => {
    const { paths } = await crawlServedUnbroken(two, PREFIX, SITE_URL);
    for (const p of [
      '/changelog/',
      '/changelog/page/2/',
      '/changelog/app/',
      '/changelog/app/page/2/',
      '/changelog/api/',
      '/changelog/app/entries/shared/',
      '/changelog/api/entries/shared/',
      '/changelog/app/tags/',
      '/changelog/app/tags/new/',
      '/changelog/api/tags/breaking/',
      '/changelog/api/feed.xml',
      '/changelog/api/rss.xml',
      '/changelog/api/feed.json',
      '/changelog/feed.xml',
      '/changelog/subscribe/',
      '/changelog/search/',
      '/changelog/images/chart.png',
    ]) {
      expect(paths).toContain(p);
    }
  });

  it('lists every page of every section in the sitemap, and no redirect page', async () => {
    const sitemap = await readSite(two, 'sitemap.xml');
    for (const p of ['app/entries/shared/', 'api/entries/shared/', 'app/page/2/', 'api/tags/breaking/', 'app/tags/']) expect(sitemap).toContain(`<loc>${SITE_URL}${p}</loc>`);
    expect(sitemap).not.toContain(`<loc>${SITE_URL}entries/`);
  });

  it('lists every product on the home page, newest first, each marked, with a product filter', async () => {
    const home = await readSite(two, 'index.html');
    const titles = [...home.matchAll(/<h2 class="entry-title" id="entry-([a-z]+)-([a-z0-9-]+)">/g)].map((m) => `${m[1]}/${m[2]}`);
    expect(titles.slice(0, 3)).toEqual(['api/shared', 'app/shared', 'app/update-24']);
    expect(home).toContain('<a class="entry-product" href="/changelog/api/">Lumen API (v2)</a>');
    expect(home).toContain('<a class="entry-product" href="/changelog/app/">Lumen App</a>');
    expect(home).toMatch(/<ul class="tags product-filter"[^>]*>\s*<li><a class="tag" href="\/changelog\/app\/">Lumen App<\/a><\/li>\s*<li><a class="tag" href="\/changelog\/api\/">Lumen API \(v2\)<\/a><\/li>/);
  });

  it("gives each section its product's name, theme and logo, and the root the site's", async () => {
    const apiPage = await readSite(two, 'api/entries/shared/index.html');
    expect(apiPage).toContain('<body class="theme-paper">');
    expect(apiPage).toContain('<span class="brand-name">Lumen API (v2)</span>');
    expect(apiPage).toContain('src="https://acme.example.com/api.png"');
    expect(apiPage).toContain('href="/changelog/api/feed.xml"');
    const appPage = await readSite(two, 'app/entries/shared/index.html');
    expect(appPage).toContain('<body class="theme-commit">');
    expect(appPage).toContain('<span class="brand-name">Lumen App</span>');
    expect(await readSite(two, 'index.html')).toContain('<body class="theme-commit">');
    const themed = await build(join(dir, '_themed'), { search: false, theme: 'mono', sections: [{ key: 'app', contentDir: app }, { key: 'api', contentDir: api }] });
    // The same image in both mirrors is no conflict.
    expect(themed.warnings).toEqual([]);
    expect(await readSite(themed.outputDir, 'index.html')).toContain('<body class="theme-mono">');
    expect(await readSite(themed.outputDir, 'api/index.html')).toContain('<body class="theme-paper">');
  });

  it("parses every feed with feedsmith: a product's has its entries only, the root's every product's", async () => {
    const feeds = (await filesOf(two)).filter((f) => /(^|\/)(feed\.xml|rss\.xml|feed\.json)$/.test(f));
    expect(feeds.length).toBe(3 * (1 + 1 + 2 + 1 + 1 + 2)); // root, app, its 2 tags, api, its tag, app's tags at their old URLs
    for (const f of feeds) expect(feedIds(f, await readSite(two, f)).length).toBeGreaterThan(0);
    const atom = parseAtomFeed(await readSite(two, 'api/feed.xml'));
    expect(atom.title).toEqual({ value: 'Lumen API (v2)' });
    expect(atom.entries!.map((e) => e.id)).toEqual(['urn:uuid:b0000000-0000-4000-8000-000000000001', 'urn:uuid:b0000000-0000-4000-8000-000000000002']);
    const root = feedIds('feed.json', await readSite(two, 'feed.json'));
    expect(root).toHaveLength(27);
    expect(root[0]).toBe('urn:uuid:b0000000-0000-4000-8000-000000000001');
  });

  it('indexes every product for search, each page with its product as a filter', async () => {
    const results = await pagefindResults(two);
    expect(results).toHaveLength(27);
    const byProduct = (key: string) => results.filter((r) => r.filters.product?.includes(key)).map((r) => r.url).sort();
    expect(byProduct('api')).toEqual(['/api/entries/rate-limits/', '/api/entries/shared/']);
    expect(byProduct('app')).toHaveLength(25);
    expect(byProduct('app')).toContain('/app/entries/shared/');
  });

  it("writes each product's latest.json for the widget's data-workspace, and the root's of every product", async () => {
    const latest = (rel: string) => readSite(two, rel).then((t) => JSON.parse(t) as { url: string; entries: Array<{ url: string }> });
    expect((await latest('api/latest.json')).entries.map((e) => e.url)).toEqual([`${SITE_URL}api/entries/shared/`, `${SITE_URL}api/entries/rate-limits/`]);
    expect((await latest('app/latest.json')).entries.every((e) => e.url.startsWith(`${SITE_URL}app/`))).toBe(true);
    expect((await latest('latest.json')).url).toBe(`${SITE_URL}api/entries/shared/`);
    const widget = await readFile(join(PACKAGED_SITE_DIR, 'widget.js'), 'utf8');
    expect(widget).toContain("script.getAttribute('data-workspace')");
  });

  it("offers each product's feeds and the combined ones on the Subscribe page", async () => {
    const page = await readSite(two, 'subscribe/index.html');
    for (const url of ['feed.xml', 'app/feed.xml', 'api/feed.xml']) expect(page).toContain(`<code class="copy-text">${SITE_URL}${url}</code>`);
    expect(page).toContain('<code>data-workspace="api"</code>');
  });

  it('keeps every URL of the one-workspace site it grew from: the same file, or a redirect page', async () => {
    const published = (await filesOf(one)).filter((f) => !f.startsWith('pagefind/') && !f.startsWith('bundle/'));
    const now = new Set(await filesOf(two));
    expect(published.filter((f) => !now.has(f))).toEqual([]);
    const moved = await readSite(two, 'entries/update-3/index.html');
    expect(moved).toContain('<meta http-equiv="refresh" content="0; url=/changelog/app/entries/update-3/">');
    expect(moved).toContain(`<link rel="canonical" href="${SITE_URL}app/entries/update-3/">`);
    expect(await readSite(two, 'tags/new/index.html')).toContain('url=/changelog/app/tags/new/"');
    expect(await readSite(two, 'tags/index.html')).toContain('url=/changelog/app/tags/"');
  });

  it("writes the redirect pages under the base path with a team's templates too (the page scan)", async () => {
    const team = join(dir, 'team-site');
    await mkdir(join(team, '_includes'), { recursive: true });
    await writeFile(join(team, '_includes/footer.njk'), '<footer><a href="/subscribe/">Subscribe</a></footer>\n');
    const out = join(dir, '_team');
    await build(out, { contentDir: dir, siteDir: team, search: false, sections: [{ key: 'app', contentDir: app }, { key: 'api', contentDir: api }] });
    const moved = await readSite(out, 'entries/update-3/index.html');
    expect(moved).toContain('<meta http-equiv="refresh" content="0; url=/changelog/app/entries/update-3/">');
    expect(moved).toContain('<a href="/changelog/app/entries/update-3/">');
  });

  it("keeps the feeds' item ids: each old feed's items are in the feed at its URL now", async () => {
    const feeds = (await filesOf(one)).filter((f) => /(^|\/)(feed\.xml|rss\.xml|feed\.json)$/.test(f));
    expect(feeds).toContain('tags/new/feed.xml');
    for (const f of feeds) {
      const before = feedIds(f, await readSite(one, f));
      const after = feedIds(f, await readSite(two, f));
      expect(after).toEqual(expect.arrayContaining(before));
      // The product's own feed has exactly the earlier items.
      expect(feedIds(f, await readSite(two, `app/${f}`))).toEqual(before);
    }
    // A tag feed at its old URL is the feed a reader knows: its id and self link as before.
    const [was, is] = [parseAtomFeed(await readSite(one, 'tags/new/feed.xml')), parseAtomFeed(await readSite(two, 'tags/new/feed.xml'))];
    expect(is.id).toBe(was.id);
    expect(is.links?.find((l) => l.rel === 'self')?.href).toBe(`${SITE_URL}tags/new/feed.xml`);
  });
});

describe('sections: their keys, and the build cache', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('refuses a key that is no path segment, names two workspaces or is a folder of the root, naming it', async () => {
    const app = await writeContent(join(dir, 'app'), { entries: dailyEntries(1, '2026-03-15') });
    const build = (keys: string[]) =>
      buildSite({ contentDir: app, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_site'), siteUrl: SITE_URL, root: dir, search: false, sections: keys.map((key) => ({ key, contentDir: app })) });
    await expect(build(['App'])).rejects.toMatchObject({ code: 'E_CONFIG', field: 'workspaces.App' });
    await expect(build(['App'])).rejects.toThrow(/"App" is not a path segment/);
    await expect(build(['app', 'app'])).rejects.toThrow(/"app" names two workspaces/);
    await expect(build(['tags'])).rejects.toThrow(/"tags" is a folder of the site's root/);
    await expect(build([])).rejects.toMatchObject({ code: 'E_CONFIG', field: 'workspaces' });
  });

  it("warns of a product's theme the site does not have, naming the workspace", async () => {
    const odd = await writeContent(join(dir, 'odd'), { workspace: { ...WORKSPACE, theme: 'neon' }, entries: dailyEntries(1, '2026-03-15') });
    const ok = await writeContent(join(dir, 'ok'), { entries: dailyEntries(1, '2026-03-15') });
    const result = await buildSite({ contentDir: ok, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_odd'), siteUrl: SITE_URL, root: dir, search: false, sections: [{ key: 'ok', contentDir: ok }, { key: 'odd', contentDir: odd }] });
    expect(result.warnings).toEqual([expect.stringContaining('the workspace "odd"\'s theme "neon" is not a theme of this site: its section uses "commit"')]);
    expect(await readSite(result.outputDir, 'odd/index.html')).toContain('<body class="theme-commit">');
  });

  it("publishes an image path two products hold once, the first's, and warns when their bytes differ", async () => {
    const first = await writeContent(join(dir, 'img/first'), { entries: dailyEntries(1, '2026-03-15'), images: { 'logo.png': pngHeader(10, 10) } });
    const second = await writeContent(join(dir, 'img/second'), { entries: dailyEntries(1, '2026-03-15'), images: { 'logo.png': pngHeader(20, 20) } });
    const result = await buildSite({ contentDir: dir, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_img'), siteUrl: SITE_URL, root: dir, search: false, sections: [{ key: 'first', contentDir: first }, { key: 'second', contentDir: second }] });
    expect(result.warnings).toEqual(['the workspaces "first" and "second" both have images/logo.png, with other bytes: the site publishes "first"\'s (rename one of them)']);
    expect(await readFile(join(result.outputDir, 'images/logo.png'))).toEqual(pngHeader(10, 10));
  });

  it('gives two products\' local entries of one file name distinct feed item ids, the first product its one-workspace ids', async () => {
    const local = { title: 'A launch', date: '2026-03-15', slug: 'launch' }; // no identifier: not pushed yet
    const first = await writeContent(join(dir, 'ids/first'), { entries: [local] });
    const second = await writeContent(join(dir, 'ids/second'), { entries: [local] });
    const options = { contentDir: first, siteDir: PACKAGED_SITE_DIR, siteUrl: SITE_URL, root: dir, today: '2026-03-15', search: false };
    const alone = await buildSite({ ...options, outputDir: join(dir, '_ids1') });
    const both = await buildSite({ ...options, outputDir: join(dir, '_ids2'), sections: [{ key: 'first', contentDir: first }, { key: 'second', contentDir: second }] });
    const ids = feedIds('feed.xml', await readSite(both.outputDir, 'feed.xml'));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids).toContain(feedIds('feed.xml', await readSite(alone.outputDir, 'feed.xml'))[0]);
  });

  it("builds with a build cache, and takes no page or search archive of the one-workspace site's URLs", async () => {
    const app = await writeContent(join(dir, 'grow/app'), { entries: dailyEntries(30, '2026-03-15') });
    const api = await writeContent(join(dir, 'grow/api'), { entries: dailyEntries(3, '2026-03-14').map((e) => ({ ...e, title: `API ${e.title}` })) });
    const options = { contentDir: app, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_site'), siteUrl: SITE_URL, root: dir, today: '2026-03-15', cacheDir: join(dir, 'cache') };
    await buildSite(options);
    await writeContent(join(dir, 'grow/app'), { entries: [{ title: 'One more', date: '2026-03-15' }] });
    const sections = [{ key: 'app', contentDir: app }, { key: 'api', contentDir: api }];
    const grown = await buildSite({ ...options, sections });
    expect(grown.cache?.pages.reused).toBe(0);
    const urls = (await pagefindResults(join(dir, '_site'))).map((r) => r.url);
    expect(urls).toHaveLength(34);
    expect(urls.filter((u) => !/^\/(app|api)\/entries\//.test(u))).toEqual([]);
    // Again, warm: the same site.
    const again = await buildSite({ ...options, sections });
    expect(again.cache?.hits).toBe(34);
    expect(again.cache?.files).toEqual({ parsed: 0, reused: 34 });
    expect(again.cache?.pages).toMatchObject({ rendered: 0, reused: grown.cache!.pages.rendered });
    expect((await pagefindResults(join(dir, '_site'))).map((r) => r.url).sort()).toEqual([...urls].sort());
    await crawlServedUnbroken(join(dir, '_site'), PREFIX, SITE_URL);
  });
});
