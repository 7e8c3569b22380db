// A site of two products as a user gets it (docs/site.md "Several products"): changelog.config.json
// names the workspaces `app` and `api`, one emulator serves both over HTTP (a token each), the
// real CLI's `sync` mirrors them and builds the site for http://127.0.0.1:<port>/repo/, and the
// built `_site`, served under /repo/ only, is crawled from /repo/ (test/helpers/browser/crawl.ts):
// every page reached and no broken link, every product's section, entry and tag pages, the
// combined home page, and every feed (root, product, tag; Atom, RSS, JSON) parsed by feedsmith,
// its item links answering and its item ids unique; a second `build` takes every page from the
// page cache and writes the same site. The browser's part (search narrowed to a
// product, the widget per product) is test/browser/products-under-base-path.test.ts.
import { readdir, readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from 'feedsmith';
import type { DefaultTreeAdapterMap } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlSite, type CrawlResult } from '../../helpers/browser/crawl.js';
import { elementsOf } from '../../helpers/browser/html.js';
import { differences } from '../../helpers/site/page-cache-project.js';
import { PREFIX, PRODUCTS, syncTwoProducts, type TwoProducts } from '../../helpers/site/two-products.js';
import { runCli } from '../../helpers/process/cli.js';

type Element = DefaultTreeAdapterMap['element'];

const KEYS = ['app', 'api'] as const;
const FEED = /(^|\/)(feed\.xml|rss\.xml|feed\.json)$/;

/** Every file of the built site, '/'-separated, relative to it. */
async function siteFiles(outputDir: string): Promise<string[]> {
  const all = await readdir(outputDir, { recursive: true, withFileTypes: true });
  return all.filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(outputDir.length + 1).split(sep).join('/'));
}

/** A feed's items read by feedsmith in the format its file name says: id and link of each. */
function feedItems(file: string, text: string): Array<{ id: string; link: string }> {
  if (file.endsWith('feed.json')) return (parseJsonFeed(JSON.parse(text)).items ?? []).map((i) => ({ id: i.id!, link: i.url! }));
  if (file.endsWith('rss.xml')) return (parseRssFeed(text).items ?? []).map((i) => ({ id: i.guid!.value!, link: i.link! }));
  return (parseAtomFeed(text).entries ?? []).map((e) => ({ id: e.id!, link: e.links!.find((l) => (l.rel ?? 'alternate') === 'alternate')!.href! }));
}

/** The elements inside `el`, in document order. */
function descendants(el: Element): Element[] {
  return el.childNodes.filter((c): c is Element => 'tagName' in c).flatMap((c) => [c, ...descendants(c)]);
}

/** The text of `el`, trimmed. */
function textOf(el: Element): string {
  return el.childNodes.map((c) => ('tagName' in c ? textOf(c) : c.nodeName === '#text' ? c.value : '')).join('').trim();
}

/**
 * The pages a reader reaches from the site's root by following links (`<a href>`, and the search
 * box's `<form action>`), not the sitemap or the search index: their paths under the base path.
 */
async function linkedPages(outputDir: string, siteUrl: string): Promise<Set<string>> {
  const origin = new URL(siteUrl).origin;
  const seen = new Set([PREFIX]);
  const queue = [PREFIX];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const html = await readFile(join(outputDir, path.slice(PREFIX.length), 'index.html'), 'utf8').catch(() => '');
    for (const a of elementsOf(html)) {
      const href = a.attrs.find((x) => x.name === (a.tagName === 'a' ? 'href' : a.tagName === 'form' ? 'action' : ''))?.value;
      const to = href === undefined ? undefined : new URL(href, `${origin}${path}`);
      if (!to || to.origin !== origin || !to.pathname.startsWith(PREFIX) || !to.pathname.endsWith('/') || seen.has(to.pathname)) continue;
      seen.add(to.pathname);
      queue.push(to.pathname);
    }
  }
  return seen;
}

/** The entries of a product (or of both), newest first: their entry page paths under /repo/. */
function entryPages(keys: readonly ('app' | 'api')[], tag?: string): string[] {
  return keys
    .flatMap((key) => PRODUCTS[key].entries.filter((e) => !tag || e.tags.includes(tag)).map((e) => ({ date: e.date, path: `${PREFIX}${key}/entries/${e.slug}/` })))
    .sort((a, b) => b.date.localeCompare(a.date))
    .map((e) => e.path);
}

describe('two workspaces synced by the CLI, the site served under /repo/ and crawled from it', () => {
  let site: TwoProducts;
  let files: string[];
  let crawl: CrawlResult & { paths: string[] };

  beforeAll(async () => {
    site = await syncTwoProducts();
    files = await siteFiles(site.outputDir);
    const crawled = await crawlSite({ outputDir: site.outputDir, server: site.server.url, prefix: PREFIX, siteUrl: site.siteUrl, fromRoot: true });
    crawl = { ...crawled, paths: [...crawled.fetched].map((u) => new URL(u).pathname) };
  });
  afterAll(async () => site?.close());

  it("builds again from the page cache the same site, every product's pages taken from it; prints no 'undefined'", async () => {
    expect(site.sync.stdout + site.sync.stderr).not.toContain('undefined');
    const out = join(site.dir, '_warm');
    const warm = await runCli(['--json', 'build'], { cwd: site.dir, env: { CHANGELOG_SITE_URL: site.siteUrl, CHANGELOG_OUTPUT_DIR: out }, timeoutMs: 120_000 });
    expect(warm.code, warm.stderr).toBe(0);
    // 6 entry pages, 3 index pages (the root's, app's, api's), a tag page each (Feature, Breaking), and
    // app's redirect pages at its one-workspace URLs (its 3 entries, Feature's page, /tags/).
    expect((JSON.parse(warm.stdout) as { cache: { pages: unknown } }).cache.pages).toEqual({ rendered: 0, reused: 6 + 3 + 2 + 5 });
    // But for the search page, which names the index's bundles (a warm build's newest entries have one of their own).
    expect((await differences(site.outputDir, out)).filter((f) => f !== 'search/index.html')).toEqual([]);
  });

  it('reaches every page from /repo/ by its links, with no broken link; the first product\'s old URLs are redirect pages to its section', async () => {
    expect(crawl.broken).toEqual([]);
    expect(crawl.brokenEverywhere).toEqual([]);
    const linked = await linkedPages(site.outputDir, site.siteUrl);
    const pages = files.filter((f) => f.endsWith('index.html'));
    const redirects: string[] = [];
    for (const f of pages) {
      const refresh = /<meta http-equiv="refresh" content="0; url=([^"]+)">/.exec(await readFile(join(site.outputDir, f), 'utf8'));
      if (refresh) redirects.push(f);
      // A redirect page (a URL the one-workspace site published) sends to a page a reader reaches.
      const path = `${PREFIX}${f.replace(/index\.html$/, '')}`;
      if (refresh) expect(linked, f).toContain(refresh[1]);
      else expect(linked, f).toContain(path);
    }
    expect(redirects.sort()).toEqual(['entries/dark-mode/index.html', 'entries/launch/index.html', 'entries/wombat-import/index.html', 'tags/feature/index.html', 'tags/index.html']);
    // Those are for links published before: the site's own pages link no redirect page.
    expect([...linked].filter((p) => redirects.includes(`${p.slice(PREFIX.length)}index.html`))).toEqual([]);
    for (const key of KEYS) {
      expect(crawl.paths).toContain(`${PREFIX}${key}/`);
      expect(crawl.paths).toContain(`${PREFIX}${key}/tags/`);
      expect(crawl.paths).toContain(`${PREFIX}${key}/tags/${PRODUCTS[key].tag.slug}/`);
      for (const path of entryPages([key])) expect(crawl.paths).toContain(path);
    }
    // Each product's image, through its entry page (img src and srcset).
    expect(crawl.paths.filter((p) => p.startsWith(`${PREFIX}img/`))).toHaveLength(4);
    expect(crawl.searchResults).toBe(6);
  });

  it("gives each product its section: its entries and tag pages only, one slug in both products each its own page", async () => {
    for (const key of KEYS) {
      const section = elementsOf(await readFile(join(site.outputDir, key, 'index.html'), 'utf8'));
      const titles = section.filter((e) => e.tagName === 'h2' && e.attrs.some((a) => a.name === 'class' && a.value === 'entry-title'));
      expect(titles.map((h) => h.attrs.find((a) => a.name === 'id')!.value)).toEqual(
        [...PRODUCTS[key].entries].reverse().map((e) => `entry-${key}-${e.slug}`),
      );
      const tagPage = await readFile(join(site.outputDir, key, 'tags', PRODUCTS[key].tag.slug, 'index.html'), 'utf8');
      for (const e of PRODUCTS[key].entries) expect(tagPage.includes(`${PREFIX}${key}/entries/${e.slug}/`), `${key} ${e.slug}`).toBe(e.tags.includes(PRODUCTS[key].tag.name));
      expect(tagPage).toContain(`<p class="eyebrow"><a href="${PREFIX}${key}/tags/">Tags</a></p>`);
    }
    expect(await readFile(join(site.outputDir, 'app/entries/launch/index.html'), 'utf8')).toContain('App launch');
    // Its latest.json (the widget's with data-workspace, linked from no page): its entries, each reached.
    for (const key of KEYS) {
      const res = await fetch(`${site.siteUrl}${key}/latest.json`);
      expect(res.status).toBe(200);
      const latest = (await res.json()) as { entries: Array<{ url: string }> };
      expect(latest.entries.map((e) => new URL(e.url).pathname)).toEqual(entryPages([key]));
      for (const e of latest.entries) expect(crawl.fetched).toContain(e.url);
    }
    expect(await readFile(join(site.outputDir, 'api/entries/launch/index.html'), 'utf8')).toContain('API launch');
  });

  it("lists both products' entries on the combined home page, newest first, each marked with its product", async () => {
    const home = elementsOf(await readFile(join(site.outputDir, 'index.html'), 'utf8'));
    const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value;
    const cards = home.filter((e) => e.tagName === 'article' && attr(e, 'class') === 'entry');
    const marked = cards.map((card) => {
      const inside = descendants(card);
      const product = inside.find((e) => e.tagName === 'a' && attr(e, 'class') === 'entry-product')!;
      const title = inside.find((e) => e.tagName === 'h2')!;
      return { product: attr(product, 'href'), name: textOf(product), title: textOf(title) };
    });
    const all = KEYS.flatMap((key) => PRODUCTS[key].entries.map((e) => ({ ...e, key }))).sort((a, b) => b.date.localeCompare(a.date));
    expect(marked).toEqual(all.map((e) => ({ product: `${PREFIX}${e.key}/`, name: PRODUCTS[e.key].title, title: e.title })));
  });

  it('parses every feed with feedsmith: reached from /repo/, its item links answering, its ids unique', async () => {
    const feeds = files.filter((f) => FEED.test(f));
    // Root, each product and its tag; the first product's tag feed at its old URL too.
    const dirs = ['', 'app/', 'api/', 'app/tags/feature/', 'api/tags/breaking/', 'tags/feature/'];
    expect(feeds.sort()).toEqual(dirs.flatMap((d) => ['feed.json', 'feed.xml', 'rss.xml'].map((f) => `${d}${f}`)).sort());
    const expected: Record<string, string[]> = {
      '': entryPages(KEYS),
      'app/': entryPages(['app']),
      'api/': entryPages(['api']),
      'app/tags/feature/': entryPages(['app'], 'Feature'),
      'api/tags/breaking/': entryPages(['api'], 'Breaking'),
      'tags/feature/': entryPages(['app'], 'Feature'),
    };
    for (const f of feeds) {
      const items = feedItems(f, await readFile(join(site.outputDir, f), 'utf8'));
      const dir = f.replace(FEED, '$1');
      expect(items.map((i) => new URL(i.link).pathname), f).toEqual(expected[dir]);
      expect(new Set(items.map((i) => i.id)).size, f).toBe(items.length);
      // The links are on the site URL, that is, on the server: the crawl fetched each (200).
      for (const i of items) expect(crawl.fetched, `${f}: ${i.link}`).toContain(i.link);
      // Reached: every feed but the old URL's, kept for readers subscribed to it.
      if (!f.startsWith('tags/')) expect(crawl.paths, f).toContain(`${PREFIX}${f}`);
    }
  });
});
