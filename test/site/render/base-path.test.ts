// The site under a base path, as GitHub Pages serves a project site: built with
// `https://acme.github.io/changelog/` and served under /changelog/ only, every link, asset,
// feed link and search file resolves. The corpus suite crawls the real changelog the same way;
// test/e2e/site/large-site-under-base-path.test.ts a site of 2,000 entries that the real CLI builds.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite, type BuildOptions } from '../../../src/site/pipeline/build.js';
import { serveSite } from '../../../src/site/dev/serve.js';
import { siteAbsoluteUrl, sitePathPrefix } from '../../../src/core/site-url.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../../helpers/browser/static-server.js';
import { crawlServedUnbroken, crawlSite, crawlUnbroken, pagefindResultUrls } from '../../helpers/browser/crawl.js';
import { dailyEntries, pngHeader, writeContent } from '../../helpers/site/site-fixture.js';

const SITE_URL = 'https://acme.github.io/changelog/';
const PREFIX = '/changelog/';

describe('the base path of a site URL', () => {
  it('is the path of the URL, with a trailing slash', () => {
    expect(sitePathPrefix('https://acme.github.io/changelog/')).toBe('/changelog/');
    expect(sitePathPrefix('https://acme.github.io/changelog')).toBe('/changelog/');
    expect(sitePathPrefix('https://changelog.example.com')).toBe('/');
    expect(() => sitePathPrefix('not a url')).toThrow(TypeError);
  });

  it('is kept in absolute URLs, where new URL() would drop it', () => {
    expect(siteAbsoluteUrl('/feed.xml', SITE_URL)).toBe('https://acme.github.io/changelog/feed.xml');
    expect(new URL('/feed.xml', SITE_URL).href).toBe('https://acme.github.io/feed.xml');
    expect(siteAbsoluteUrl('/', SITE_URL)).toBe(SITE_URL);
    expect(siteAbsoluteUrl('entries/a/', SITE_URL)).toBe('https://acme.github.io/changelog/entries/a/');
    expect(siteAbsoluteUrl('https://elsewhere.test/x', SITE_URL)).toBe('https://elsewhere.test/x');
  });
});

describe('a site built for https://acme.github.io/changelog/, served under /changelog/ only', () => {
  let dir: string;
  let server: StaticServer;
  useTempDir((d) => (dir = d));

  const build = (outputDir: string, options: Partial<BuildOptions> = {}) =>
    buildSite({ contentDir: join(dir, 'content'), siteDir: PACKAGED_SITE_DIR, outputDir, siteUrl: SITE_URL, root: dir, today: '2026-03-15', ...options });

  beforeAll(async () => {
    await writeContent(dir, {
      entries: [
        // 25 entries: the index has a second page, the tags have pages.
        ...dailyEntries(24, '2026-03-14', (i) => (i % 2 ? ['New'] : ['Fix'])),
        {
          title: 'Pictures and links',
          date: '2026-03-15',
          tags: ['New'],
          body: 'A chart:\n\n![Chart](/images/chart.png)\n\nSee [the previous update](/entries/update-24/) and [the tags](/tags/).\n',
        },
      ],
      images: { 'chart.png': pngHeader(640, 360) },
    });
    await build(join(dir, '_site'));
    server = await serveStatic(join(dir, '_site'), {}, { prefix: PREFIX });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('follows every link, asset, feed link and search file: none is broken', async () => {
    const { paths, searchResults } = await crawlUnbroken({ outputDir: join(dir, '_site'), server: server.url, prefix: PREFIX, siteUrl: SITE_URL });
    // What the crawl reached: pages, the stylesheet bundle, the feeds, search and images.
    for (const p of ['/changelog/', '/changelog/page/2/', '/changelog/entries/pictures-and-links/', '/changelog/tags/new/', '/changelog/search/', '/changelog/feed.xml', '/changelog/rss.xml', '/changelog/feed.json', '/changelog/images/chart.png', '/changelog/pagefind/pagefind-ui.js']) {
      expect(paths).toContain(p);
    }
    expect(paths.some((p) => /^\/changelog\/bundle\/.+\.css$/.test(p))).toBe(true);
    expect(searchResults).toBe(25);
  });

  it('writes the base path into the pages and the site URL into the absolute URLs', async () => {
    const out = join(dir, '_site');
    const page = await readFile(join(out, 'entries/pictures-and-links/index.html'), 'utf8');
    expect(page).toContain('src="/changelog/images/chart.png"');
    expect(page).toContain('href="/changelog/entries/update-24/"');
    expect(page).toContain('<link rel="canonical" href="https://acme.github.io/changelog/entries/pictures-and-links/">');
    expect(page).not.toMatch(/(?:href|src|action)="\/(?!changelog\/)/);
    const notFound = await readFile(join(out, '404.html'), 'utf8');
    expect(notFound).not.toMatch(/(?:href|src|action)="(?!\/changelog\/|https:|#)/);
    const atom = await readFile(join(out, 'feed.xml'), 'utf8');
    expect(atom).toContain('<link href="https://acme.github.io/changelog/feed.xml" rel="self"');
    expect(atom).toContain('<link href="https://acme.github.io/changelog/entries/pictures-and-links/" rel="alternate"');
    // Entry HTML in the feeds: site-relative URLs under the base path.
    expect(atom).toContain('src=&quot;https://acme.github.io/changelog/images/chart.png&quot;');
    expect(atom).toContain('href=&quot;https://acme.github.io/changelog/tags/&quot;');
    expect(await readFile(join(out, 'robots.txt'), 'utf8')).toContain('Sitemap: https://acme.github.io/changelog/sitemap.xml');
    expect(await readFile(join(out, 'sitemap.xml'), 'utf8')).toContain('<loc>https://acme.github.io/changelog/tags/</loc>');
    const latest = JSON.parse(await readFile(join(out, 'latest.json'), 'utf8')) as { url: string; content: string; entries: Array<{ url: string }> };
    expect(latest.url).toBe('https://acme.github.io/changelog/entries/pictures-and-links/');
    // Its content works on the embedding page's origin: absolute URLs under the base path.
    expect(latest.content).toContain('src="https://acme.github.io/changelog/images/chart.png"');
    expect(latest.content).not.toMatch(/(?:href|src)="\/(?!\/)/);
    expect(latest.entries[0]!.url).toBe(latest.url);
    // Site-relative in the index: Pagefind's UI adds the path it is served under.
    expect((await pagefindResultUrls(out)).every((u) => u.startsWith('/entries/'))).toBe(true);
  });

  it('the crawl can fail: the same site built at / (pathPrefix "/") and served under /changelog/ has broken links', async () => {
    const out = join(dir, '_site-at-root');
    await build(out, { pathPrefix: '/' });
    const page = await readFile(join(out, 'index.html'), 'utf8');
    expect(page).toContain('href="/feed.xml"');
    const rootServer = await serveStatic(out, {}, { prefix: PREFIX });
    try {
      const broken = (await crawlSite({ outputDir: out, server: rootServer.url, prefix: PREFIX, siteUrl: SITE_URL })).broken.map((b) => new URL(b.url).pathname);
      expect(broken).toEqual(expect.arrayContaining(['/feed.xml', '/', '/search/', '/images/chart.png', '/pagefind/pagefind-ui.js']));
      expect(broken.some((p) => p.startsWith('/entries/'))).toBe(true);
    } finally {
      await rootServer.close();
    }
  });

  it('dev serves the same site at / whatever the site URL', async () => {
    const port = await freePort();
    const dev = await serveSite({ contentDir: join(dir, 'content'), siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_dev'), siteUrl: SITE_URL, root: dir, port });
    try {
      const index = await fetch(dev.url);
      const html = await index.text();
      expect(index.status).toBe(200);
      expect(html).toContain('href="/feed.xml"');
      expect(html).not.toMatch(/(?:href|src|action)="\/changelog\//);
      const css = /<link rel="stylesheet" href="(\/bundle\/[^"]+\.css)">/.exec(html)?.[1];
      expect(css).toBeDefined();
      expect((await fetch(new URL(css!, dev.url))).status).toBe(200);
      // Absolute URLs keep naming the public site.
      expect(html).toContain('<link rel="canonical" href="https://acme.github.io/changelog/">');
    } finally {
      await dev.close();
    }
  });
});

describe('a scheduled build with the build cache, after one new entry, served under /changelog/ only', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('follows every link, asset and search file of both search bundles: none is broken', async () => {
    await writeContent(dir, { entries: dailyEntries(25, '2026-03-14', (i) => (i % 2 ? ['New'] : ['Fix'])) });
    const out = join(dir, '_site');
    const build = () => buildSite({ contentDir: join(dir, 'content'), siteDir: PACKAGED_SITE_DIR, outputDir: out, siteUrl: SITE_URL, root: dir, today: '2026-03-15', cacheDir: join(dir, '.cache') });
    await build();
    await writeFile(join(dir, 'content/entries/2026-03-15-the-new-one.md'), '---\ntitle: The new one\nslug: the-new-one\npublish_at: 2026-03-15\nstatus: published\ntags: [New]\n---\n\nWritten after the [first build](/entries/update-25/).\n');
    const warm = await build();
    // Warm indeed: most pages from the page cache, the new entry in the recent bundle.
    expect(warm.cache?.pages.reused).toBeGreaterThan(0);
    expect(warm.search?.bundles).toEqual(['/pagefind/', '/pagefind/recent/']);
    const crawl = await crawlServedUnbroken(out, PREFIX, SITE_URL);
    expect(crawl.paths).toEqual(expect.arrayContaining(['/changelog/entries/the-new-one/', '/changelog/pagefind/recent/pagefind-entry.json']));
    expect(crawl.searchResults).toBe(26);
    expect(await pagefindResultUrls(out)).toContain('/entries/the-new-one/');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}
