// The page cache on a site of several products (the build's `sections`, docs/site.md#several-products),
// through the real build (buildSite, real Eleventy): after each kind of change (an entry edited in one
// product, a new entry, a tag added, a product's name or theme, the site's title, a product added),
// a build that takes pages from the previous build's cache writes byte for byte the site a build
// without a cache writes, and takes from the cache the pages nothing changed: a product's page is
// keyed by its product's shell, the site's own pages by the site's and the products' names and
// links (src/site/data/layout-data.ts `pageShell`, src/site/cache/page-keys.ts). The one-workspace
// cases are test/site/cache/page-cache.test.ts.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite, type BuildOptions, type BuildResult } from '../../../src/site/pipeline/build.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { differences } from '../../helpers/site/page-cache-project.js';
import { dailyEntries, TAGS, WORKSPACE, writeContent, type EntrySpec } from '../../helpers/site/site-fixture.js';

const SITE_URL = 'https://acme.github.io/changelog/';

/** A product's mirror: its workspace.json, tags.json and entry files. */
interface Product {
  workspace: Record<string, unknown>;
  tags: unknown[];
  entries: EntrySpec[];
}

/**
 * "app": 25 daily updates tagged New or Fix: 25 entry pages, 2 index pages (20 a page), a tag
 * page each for New and Fix. "api": 5 updates, 3 tagged Breaking: 5 entry pages, 1 index page,
 * Breaking's page. The site's own: 30 entries, 2 index pages; and app's pages at their
 * one-workspace URLs (docs/site.md#urls-never-move): a redirect page each for its entries, tag
 * pages and /tags/. 66 keyed pages in all.
 */
function startingProducts(): Record<'app' | 'api', Product> {
  return {
    app: {
      workspace: { ...WORKSPACE, name: 'Lumen App', theme: 'commit' },
      tags: TAGS,
      entries: dailyEntries(25, '2026-03-14', (i) => (i % 2 ? ['New'] : ['Fix'])),
    },
    api: {
      workspace: { ...WORKSPACE, identifier: '4d2e9b63-1e8f-4d2c-8b5a-7c3f9e0d2b18', name: 'Lumen API', theme: 'paper', logo_url: 'https://acme.example.com/api.png' },
      tags: [{ name: 'Breaking', slug: 'breaking', bg_color: '#fee2e2', text_color: '#991b1b' }],
      entries: dailyEntries(5, '2026-03-15', (i) => (i % 2 ? ['Breaking'] : [])).map((e, i) => ({ ...e, title: `API ${5 - i}`, slug: `api-${5 - i}`, date: `2026-03-${String(15 - 3 * i).padStart(2, '0')}` })),
    },
  };
}

const KEYED = 25 + 2 + 2 + (5 + 1 + 1) + 2 + (25 + 2 + 1);

describe('the page cache on a site of several products, through the real build', { timeout: 600_000 }, () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  let outputs = 0;
  let products: Record<string, Product>;
  let siteTitle: string;

  const writeProduct = async (key: string, product: Product) => {
    await rm(join(dir, key), { recursive: true, force: true });
    await writeContent(join(dir, key), product);
  };

  /** buildSite of every product (in the order written) into a new output folder, no search index. */
  const build = (options: Partial<BuildOptions> = {}): Promise<BuildResult> =>
    buildSite({
      contentDir: join(dir, 'content'),
      siteDir: PACKAGED_SITE_DIR,
      outputDir: join(dir, `out-${++outputs}`),
      siteUrl: SITE_URL,
      root: dir,
      today: '2026-03-15',
      now: new Date('2026-03-15T12:00:00Z'),
      search: false,
      sections: Object.keys(products).map((key) => ({ key, contentDir: join(dir, key, 'content') })),
      siteTitle,
      ...options,
    });

  /** A warm build (after a first one filled the cache) next to a build without the cache: the same files, byte for byte. */
  const warmAgainstCold = async () => {
    const warm = await build({ cacheDir: join(dir, 'cache') });
    const cold = await build();
    expect(warm.cache?.pages.note).toBeUndefined();
    expect(await differences(cold.outputDir, warm.outputDir)).toEqual([]);
    expect([...warm.files].sort()).toEqual([...cold.files].sort());
    return warm.cache!.pages;
  };

  beforeEach(async () => {
    products = startingProducts();
    siteTitle = 'Lumen';
    for (const [key, product] of Object.entries(products)) await writeProduct(key, product);
    const first = await build({ cacheDir: join(dir, 'cache') });
    expect(first.cache?.pages).toEqual({ rendered: KEYED, reused: 0, note: undefined });
    // Nothing changed: every page from the cache.
    expect(await warmAgainstCold()).toEqual({ rendered: 0, reused: KEYED, note: undefined });
  });

  it("an entry's body edited in one product renders its page, its product's index page and the site's index page showing it; the other product's pages come from the cache", async () => {
    // "API 3" (Breaking): its excerpt, the first paragraph, stays, so Breaking's page, a list of excerpts, stays too.
    const api = products.api!;
    api.entries = api.entries.map((e) => (e.title === 'API 3' ? { ...e, body: 'The first paragraph of API 3.\n\nMore about it, edited.\n' } : e));
    await writeProduct('api', api);
    expect(await warmAgainstCold()).toEqual({ rendered: 3, reused: KEYED - 3, note: undefined });
  });

  it("a new entry renders its page, its older neighbour's, its product's index and tag pages and the site's index pages; the other product's pages come from the cache", async () => {
    const app = products.app!;
    app.entries = [{ title: 'Update 26', date: '2026-03-15', tags: ['New'] }, ...app.entries];
    await writeProduct('app', app);
    // Its page and redirect page, Update 25's ("Next"), app's 2 index pages and New's page (every entry moves by one), the site's 2.
    expect(await warmAgainstCold()).toEqual({ rendered: 2 + 1 + 2 + 1 + 2, reused: KEYED + 2 - 8, note: undefined });
  });

  it("a tag added to one product's oldest entry renders its product's first index page too (its tag filter)", async () => {
    const app = products.app!;
    app.entries = app.entries.map((e) => (e.title === 'Update 1' ? { ...e, tags: [...(e.tags ?? []), 'Beta'] } : e));
    await writeProduct('app', app);
    // Update 1's page, app's index page 2 (its card) and page 1 (the tag filter gains Beta), Beta's new page and its redirect page, the site's page 2 (its card).
    expect(await warmAgainstCold()).toEqual({ rendered: 1 + 2 + 2 + 1, reused: KEYED + 2 - 6, note: undefined });
  });

  it("a product's workspace name renders its pages and the site's index pages (their product marks and filter); its theme only its pages", async () => {
    const api = products.api!;
    api.workspace = { ...api.workspace, name: 'Lumen Platform' };
    await writeProduct('api', api);
    expect(await warmAgainstCold()).toEqual({ rendered: 7 + 2, reused: KEYED - 9, note: undefined });
    api.workspace = { ...api.workspace, theme: 'mono' };
    await writeProduct('api', api);
    expect(await warmAgainstCold()).toEqual({ rendered: 7, reused: KEYED - 7, note: undefined });
  });

  it("the site's title renders the site's own index pages only", async () => {
    siteTitle = 'Lumen Products';
    expect(await warmAgainstCold()).toEqual({ rendered: 2, reused: KEYED - 2, note: undefined });
  });

  it('a product added: every page renders (the sections are part of the build cache\'s fingerprint), the same site', async () => {
    products.web = { workspace: { ...WORKSPACE, identifier: '9a0e3c71-5b2d-4f8e-a6c4-1d7b3e9f0a25', name: 'Lumen Web' }, tags: TAGS, entries: dailyEntries(3, '2026-03-13') };
    await writeProduct('web', products.web);
    // 3 entry pages and an index page of its own; still 2 site index pages (33 entries).
    expect(await warmAgainstCold()).toEqual({ rendered: KEYED + 4, reused: 0, note: undefined });
  });
});
