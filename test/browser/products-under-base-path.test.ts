// A site of two products as a user gets it, in a real browser (Debian's Chromium through
// playwright-core): two workspaces synced by the real CLI from one emulator over HTTP, the site
// built for and served under /repo/ (test/helpers/site/two-products.ts). Search from the root
// finds both products' entries, `?product=api` only api's; the "What's new" widget with
// `data-workspace` shows its product's unread entries, each product's read state its own. The
// crawl of the same site is test/e2e/site/products-under-base-path.test.ts; the engine-level
// checks (a product page's search box, every product's widget) are sections.test.ts.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser/chromium.js';
import { searchResultLinks } from '../helpers/browser/search-results.js';
import { openWidget } from '../helpers/browser/widget-panel.js';
import { PREFIX, PRODUCTS, syncTwoProducts, type TwoProducts } from '../helpers/site/two-products.js';

/** The reader's today: every entry (March 1 to 6) is within the widget's 30 days. */
const TODAY = '2026-03-10';

/** A product's page on the site's origin, outside the site, with the widget for `workspace`. */
const hostPage = (siteUrl: string, workspace: string) => ({
  type: 'text/html',
  body: `<!doctype html><html lang="en"><head><title>${workspace}</title></head><body><div id="whats-new"></div>
  <script src="${siteUrl}widget.js" data-target="#whats-new" data-workspace="${workspace}" defer></script></body></html>`,
});

/** A product's entry titles, newest first. */
const titlesOf = (key: 'app' | 'api') => [...PRODUCTS[key].entries].reverse().map((e) => e.title);

describe('two workspaces synced by the CLI, the site under /repo/, in the browser', () => {
  let site: TwoProducts;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;

  beforeAll(async () => {
    site = await syncTwoProducts((siteUrl) => ({ '/app.html': hostPage(siteUrl, 'app'), '/api.html': hostPage(siteUrl, 'api') }));
    ({ context, close: closeBrowser } = await launchChromium());
    // The workspace's backlink names the service's origin: never fetched.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 404, body: '' }));
    page = context.pages()[0] ?? (await context.newPage());
    await page.clock.setFixedTime(new Date(`${TODAY}T12:00:00Z`));
  });

  afterAll(async () => {
    await closeBrowser?.();
    await site?.close();
  });

  it("finds both products' entries from the root's search, and only api's with ?product=api", async () => {
    // "launch" is a slug of both products.
    expect(await searchResultLinks(page, `${site.siteUrl}search/?q=launch`)).toEqual([`${PREFIX}api/entries/launch/`, `${PREFIX}app/entries/launch/`]);
    expect(await searchResultLinks(page, `${site.siteUrl}search/?q=launch&product=api`)).toEqual([`${PREFIX}api/entries/launch/`]);
    expect(await searchResultLinks(page, `${site.siteUrl}search/?q=wombat&product=app`)).toEqual([`${PREFIX}app/entries/wombat-import/`]);
  });

  it("shows each product's unread entries with data-workspace, its read state its own", async () => {
    const unread = (key: 'app' | 'api') => ({ unread: 3, titles: titlesOf(key).map((t) => `${t} (new)`) });
    expect(await openWidget(page, `${site.server.url}/app.html`)).toEqual(unread('app'));
    // app's panel opened (its entries read): api's are still unread, and app's now read.
    expect(await openWidget(page, `${site.server.url}/api.html`)).toEqual(unread('api'));
    expect(await openWidget(page, `${site.server.url}/app.html`)).toEqual({ unread: 0, titles: titlesOf('app') });
  });
});
