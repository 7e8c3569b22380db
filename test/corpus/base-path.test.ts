// The real changelog (764 entries) as GitHub Pages serves a project site: built by the CLI
// with CHANGELOG_SITE_URL=https://acme.github.io/changelog/, served under /changelog/ only
// (404 everywhere else), every link, asset, feed link and search file of every page followed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';
import { crawlSite } from '../helpers/browser/crawl.js';
import { CORPUS_DIR, loadCorpus, writeCorpusEntries, type CorpusEntry } from './corpus.js';

const corpus: CorpusEntry[] = existsSync(CORPUS_DIR) ? loadCorpus() : [];
const SITE_URL = 'https://acme.github.io/changelog/';

describe.runIf(corpus.length > 0)('the real changelog under a base path', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: StaticServer;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    await writeCorpusEntries(dir, corpus);
    const r = await runCli(['build'], { cwd: dir, env: { CHANGELOG_SITE_URL: SITE_URL, GITHUB_ACTIONS: undefined }, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    server = await serveStatic(join(dir, '_site'), {}, { prefix: '/changelog/' });
  });
  afterAll(async () => {
    await server?.close();
    await cleanup();
  });

  it('follows every link, asset, feed link and search file from every page: none is broken', async () => {
    const crawl = await crawlSite({ outputDir: join(dir, '_site'), server: server.url, prefix: '/changelog/', siteUrl: SITE_URL });
    expect(crawl.broken.slice(0, 20)).toEqual([]);
    // The corpus's own broken links (relative links to pages of Box's developer site, a few
    // malformed Markdown links) are broken at / too: not the base path's.
    expect(crawl.brokenEverywhere.every((b) => !b.href.startsWith('/changelog/entries/'))).toBe(true);
    const paths = [...crawl.fetched].map((u) => new URL(u).pathname);
    expect(paths.filter((p) => /^\/changelog\/entries\/[^/]+\/$/.test(p))).toHaveLength(corpus.length);
    expect(crawl.searchResults).toBe(corpus.length);
    expect(paths).toEqual(expect.arrayContaining(['/changelog/', '/changelog/page/2/', '/changelog/feed.xml', '/changelog/rss.xml', '/changelog/feed.json', '/changelog/sitemap.xml', '/changelog/search/', '/changelog/pagefind/pagefind-ui.js']));
  });

  it('the crawl can fail: the same site served under another prefix breaks every link', async () => {
    const elsewhere = await serveStatic(join(dir, '_site'), {}, { prefix: '/other/' });
    try {
      const crawl = await crawlSite({ outputDir: join(dir, '_site'), server: elsewhere.url, prefix: '/other/', siteUrl: SITE_URL });
      const broken = [...crawl.broken, ...crawl.brokenEverywhere].map((b) => new URL(b.url).pathname);
      expect(broken).toEqual(expect.arrayContaining(['/changelog/', '/changelog/feed.xml', '/changelog/pagefind/pagefind-ui.js']));
    } finally {
      await elsewhere.close();
    }
  });
});
