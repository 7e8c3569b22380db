/// <reference lib="dom" />
// A site of two products (the build's `sections`, docs/site.md#several-products) in a real
// browser (Debian's Chromium through playwright-core), built for and served under /changelog/:
// search narrowed to one product (Pagefind's `product` filter, as a product's own search box
// asks for it), and the "What's new" widget showing one product's entries with `data-workspace`.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../src/core/config.js';
import { buildSite } from '../../src/site/pipeline/build.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { searchResultLinks } from '../helpers/browser/search-results.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';
import { tempDir } from '../helpers/process/cli.js';
import { dailyEntries, WORKSPACE, writeContent } from '../helpers/site/site-fixture.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));
const TODAY = '2026-03-20';
const PREFIX = '/changelog/';

/** The product's page with the widget for `workspace` (none: the whole site's). */
const hostPage = (site: string, workspace?: string) =>
  `<!doctype html><html lang="en"><head><title>Product</title></head><body><div id="whats-new"></div>
  <script src="${site}widget.js" data-target="#whats-new"${workspace ? ` data-workspace="${workspace}"` : ''} defer></script></body></html>`;

describe('a site of two products in the browser, under /changelog/', () => {
  let cleanupDir: () => Promise<void>;
  let server: StaticServer;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup: cleanupDir } = await tempDir());
    const app = await writeContent(join(dir, 'app'), {
      workspace: { ...WORKSPACE, name: 'Lumen App' },
      entries: [...dailyEntries(6, '2026-03-18'), { title: 'Wombat import', date: '2026-03-19', body: 'Import from the wombat format.\n' }],
    });
    const api = await writeContent(join(dir, 'api'), {
      workspace: { ...WORKSPACE, name: 'Lumen API' },
      entries: [
        { title: 'Wombat endpoint', date: '2026-03-17', body: 'A wombat endpoint for the API.\n' },
        { title: 'Rate limits', date: '2026-03-01' },
      ],
    });
    const out = join(dir, '_site');
    // The product's pages, on the site's origin (the widget's cross-origin read is widget.test.ts's).
    const host = (workspace?: string) => ({ type: 'text/html', body: hostPage(PREFIX, workspace) });
    server = await serveStatic(out, { '/app.html': host('app'), '/api.html': host('api'), '/all.html': host() }, { prefix: PREFIX });
    base = `${server.url}${PREFIX}`;
    await buildSite({ contentDir: app, siteDir: PACKAGED_SITE_DIR, outputDir: out, siteUrl: base, root: dir, today: TODAY, sections: [{ key: 'app', contentDir: app }, { key: 'api', contentDir: api }] });
    ({ context, close: closeBrowser } = await launchChromium());
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 404, body: '' }));
    page = context.pages()[0] ?? (await context.newPage());
    await page.clock.setFixedTime(new Date(`${TODAY}T12:00:00Z`));
  });

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await cleanupDir?.();
  });

  it('searches every product, or one: a product page\'s search box narrows to it', async () => {
    expect(await searchResultLinks(page, `${base}search/?q=wombat`)).toEqual(['/changelog/api/entries/wombat-endpoint/', '/changelog/app/entries/wombat-import/']);
    await page.goto(`${base}api/`);
    await page.locator('#site-search').fill('wombat');
    await page.locator('#site-search').press('Enter');
    await page.waitForURL(/\/search\/\?q=wombat&product=api$/);
    await page.locator('.pagefind-ui__result-link', { hasText: 'Wombat endpoint' }).waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => document.querySelectorAll('.pagefind-ui__result-link').length === 1);
    expect(await page.locator('.pagefind-ui__result-link').getAttribute('href')).toBe('/changelog/api/entries/wombat-endpoint/');
  });

  /** The titles the widget's panel lists on the host page `path`. */
  async function widgetTitles(path: string): Promise<string[]> {
    await page.goto(`${server.url}${path}`);
    const badge = page.locator('changelog-widget button');
    await page.waitForFunction(() => document.querySelector('changelog-widget')?.shadowRoot?.querySelector('button')?.disabled === false);
    await badge.click();
    const panel = page.getByRole('dialog', { name: "What's new" });
    await panel.waitFor();
    return panel.locator('li a .entry-title').allTextContents();
  }

  it("shows one product's entries with data-workspace, and every product's without", async () => {
    expect(await widgetTitles('/api.html')).toEqual(['Wombat endpoint', 'Rate limits']);
    expect(await widgetTitles('/app.html')).toEqual(['Wombat import', 'Update 6', 'Update 5', 'Update 4', 'Update 3']);
    // Newest first; on one date, in the sections' order.
    expect(await widgetTitles('/all.html')).toEqual(['Wombat import', 'Update 6', 'Update 5', 'Wombat endpoint', 'Update 4']);
  });

  it('has no serious axe violation on the combined home page and a product\'s entry page', async () => {
    for (const [path, shot] of [['', 'sections-home'], ['api/entries/wombat-endpoint/', 'sections-product-entry']] as const) {
      await page.goto(`${base}${path}`);
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`), fullPage: true });
      await page.addScriptTag({ content: axe.source });
      const result = await page.evaluate(async () => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
      expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${path}: ${v.id} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`)).toEqual([]);
    }
  });
});
