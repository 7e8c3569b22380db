/// <reference lib="dom" />
// A team's first hour, in Chromium at a phone's width (390 px) and a desktop's (1280 px), in
// the light and the dark scheme: an empty workspace's site (its title once, "No updates yet",
// a search page that says there is nothing to search), a wide table that scrolls in its own
// box without splitting a word, the footer at the bottom of a short page, the Subscribe page
// (absolute feed URLs under the base path, the hosted page's sign-up, the widget's snippet:
// where a reader lands), and a feed opened in the browser as the feed itself, with no XSLT
// (Chromium is removing it). Each page passes axe-core.
import { join } from 'node:path';
import type { BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../src/core/config.js';
import { buildSite } from '../../src/site/pipeline/build.js';
import { seriousViolations } from '../helpers/browser/axe.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';
import { WORKSPACE, writeContent } from '../helpers/site/site-fixture.js';

const PREFIX = '/changelog/';
const TABLE = [
  '| Plan | Starter | Professional | Enterprise |',
  '|---|---:|---:|---:|',
  '| Seats included | 5 | 50,000 | 500,000 |',
  '| Monthly price | 0 | 49,000 | 199,000 |',
  '| Dashboards | Starter | Unlimited | Unlimited |',
].join('\n');
const EVIL = '<img src=x onerror=alert(1)> & "Tags"';

describe.each([
  { width: 390, scheme: 'light' as const },
  { width: 390, scheme: 'dark' as const },
  { width: 1280, scheme: 'light' as const },
  { width: 1280, scheme: 'dark' as const },
])('first contact at $width px, $scheme', ({ width, scheme }) => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let empty: StaticServer;
  let full: StaticServer;
  let context: BrowserContext;
  let close: (() => Promise<void>) | undefined;
  let page: Page;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    // An empty workspace named "Changelog" (the name the site falls back to), served at /.
    const emptyContent = await writeContent(join(dir, 'empty'), { workspace: { ...WORKSPACE, name: 'Changelog' }, entries: [] });
    empty = await serveStatic(join(dir, 'empty-site'));
    await buildSite({ contentDir: emptyContent, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, 'empty-site'), siteUrl: `${empty.url}/`, root: dir });
    // A public workspace whose hosted page is known, under a base path: one entry with a wide table.
    const fullContent = await writeContent(join(dir, 'full'), {
      entries: [
        { title: 'Plans compared', date: '2026-03-02', tags: ['New', EVIL], body: `Every plan, side by side.\n\n${TABLE}\n` },
        { title: 'Short one', date: '2026-03-01', tags: ['Fix'], body: 'One line.\n' },
      ],
    });
    full = await serveStatic(join(dir, 'full-site'), {}, { prefix: PREFIX });
    await buildSite({ contentDir: fullContent, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, 'full-site'), siteUrl: `${full.url}${PREFIX}`, root: dir, hostedPageUrl: 'https://changelog.example.com/acme' });
    ({ context, close } = await launchChromium({ colorScheme: scheme }));
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>' }));
    page = context.pages()[0] ?? (await context.newPage());
    await page.setViewportSize({ width, height: 800 });
  }, 240_000);

  afterAll(async () => {
    await close?.();
    await empty?.close();
    await full?.close();
    await cleanup?.();
  });

  /** The page does not scroll sideways: nothing is wider than the window. */
  const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  /**
   * What is under the footer: 0 when it ends where the page does and the page is at least as
   * tall as the window (a short page's footer at the window's bottom edge, no band under it).
   */
  const footerGap = () =>
    page.evaluate(() => Math.max(window.innerHeight, document.documentElement.scrollHeight) - (document.querySelector('.site-footer')!.getBoundingClientRect().bottom + window.scrollY));

  it('an empty workspace: the title once, "No updates yet", the footer at the bottom', async () => {
    await page.goto(`${empty.url}/`);
    expect(await page.locator('h1').first().textContent()).toBe('Changelog');
    expect(await page.title()).toBe('Changelog');
    await expect(page.locator('.empty-state h2').textContent()).resolves.toBe('No updates yet');
    expect(await page.content()).not.toMatch(/Changelog changelog/i);
    expect(Math.abs(await footerGap())).toBeLessThan(1);
    expect(await noSidewaysScroll()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('the empty search page says there is nothing to search yet, and waits for nothing', async () => {
    const errors: string[] = [];
    page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
    await page.goto(`${empty.url}/search/`);
    await expect(page.locator('#search-empty h2').textContent()).resolves.toBe('Nothing to search yet');
    expect(await page.locator('script[src*="pagefind"]').count()).toBe(0);
    expect(Math.abs(await footerGap())).toBeLessThan(1);
    expect(errors).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a wide table scrolls inside the text column; no word is split in a cell', async () => {
    await page.goto(`${full.url}${PREFIX}entries/plans-compared/`);
    const box = page.locator('.prose .table-scroll');
    await expect(box.count()).resolves.toBe(1);
    expect(await noSidewaysScroll()).toBe(true);
    // Each word of each cell sits on one line: a range over it has a single box.
    const split = await page.evaluate(() => {
      const out: string[] = [];
      for (const cell of Array.from(document.querySelectorAll('.prose td, .prose th'))) {
        const text = cell.firstChild;
        if (!text || text.nodeType !== Node.TEXT_NODE) continue;
        const value = text.textContent ?? '';
        for (const m of value.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(text, m.index);
          range.setEnd(text, m.index + m[0].length);
          if (range.getClientRects().length !== 1) out.push(m[0]);
        }
      }
      return out;
    });
    expect(split).toEqual([]);
    // The box fits the column; at a phone's width the table is wider, and scrolls.
    const fits = await box.evaluate((el) => ({ box: el.getBoundingClientRect().right <= document.querySelector('.prose')!.getBoundingClientRect().right + 0.5, scrolls: el.scrollWidth > el.clientWidth }));
    expect(fits.box).toBe(true);
    if (width === 390) expect(fits.scrolls).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a short entry page keeps its footer at the bottom, with no band under it', async () => {
    await page.goto(`${full.url}${PREFIX}entries/short-one/`);
    expect(Math.abs(await footerGap())).toBeLessThan(1);
  });

  it('"Subscribe" opens the Subscribe page: feeds with absolute URLs under the base path, the email sign-up, the widget', async () => {
    await page.goto(`${full.url}${PREFIX}`);
    await page.locator('.site-nav a', { hasText: 'Subscribe' }).click();
    await page.waitForURL(`${full.url}${PREFIX}subscribe/`);
    const copyable = await page.locator('.copy-text').allTextContents();
    expect(copyable).toContain(`${full.url}${PREFIX}feed.xml`);
    expect(copyable).toContain(`${full.url}${PREFIX}rss.xml`);
    expect(copyable).toContain(`${full.url}${PREFIX}feed.json`);
    expect(copyable).toContain(`${full.url}${PREFIX}tags/new/feed.xml`);
    // A tag's name is text, never markup.
    await expect(page.locator('.tag-feeds th .tag', { hasText: EVIL }).count()).resolves.toBe(1);
    expect(await page.locator('.tag-feeds img').count()).toBe(0);
    expect(await page.locator('#email ~ p a').getAttribute('href')).toBe('https://changelog.example.com/acme');
    expect(copyable.join('\n')).toContain(`<script src="${full.url}${PREFIX}widget.js" data-target="#whats-new" defer></script>`);
    expect(await noSidewaysScroll()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("on the Subscribe page every feed address is on screen whole: a long one wraps, at a phone's width too", async () => {
    await page.goto(`${full.url}${PREFIX}subscribe/`);
    // Each line box of each address ends inside the window (a scroll box would hide the rest).
    const cut = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.feed-urls .copy-text, .tag-feeds .copy-text')).flatMap((el) =>
        Array.from(el.getClientRects()).some((r) => r.right > window.innerWidth + 0.5 || r.left < -0.5) ? [el.textContent] : [],
      ),
    );
    expect(cut).toEqual([]);
    expect(await page.locator('.tag-feeds .copy-text').count()).toBeGreaterThan(0);
    expect(await noSidewaysScroll()).toBe(true);
    // The widget's snippet is for the site's owners: collapsed, opened on request.
    await expect(page.locator('#widget .snippet').isVisible()).resolves.toBe(false);
    await page.locator('#widget summary').click();
    await expect(page.locator('#widget .snippet').isVisible()).resolves.toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a feed opened in the browser is the feed as served: no XSLT to apply or to warn about, its data text', async () => {
    const messages: string[] = [];
    const listen = (m: ConsoleMessage) => messages.push(m.text());
    page.on('console', listen);
    try {
      for (const feed of ['feed.xml', 'rss.xml', 'tags/new/feed.xml']) {
        await page.goto(`${full.url}${PREFIX}${feed}`);
        // Not the site's styled page (its h1) but the browser's view of the feed's source.
        expect(await page.locator('h1').count(), feed).toBe(0);
        await expect(page.evaluate(() => document.body.innerText), feed).resolves.toContain(feed.endsWith('rss.xml') ? '<rss' : '<feed');
      }
      await page.goto(`${full.url}${PREFIX}tags/`);
      const evilFeed = await page.locator('.tag-index li', { hasText: EVIL }).locator('a', { hasText: 'Atom' }).getAttribute('href');
      await page.goto(`${full.url}${evilFeed!}`);
      await expect(page.evaluate(() => document.body.innerText)).resolves.toContain(`<title>Acme: ${EVIL}</title>`);
      expect(await page.locator('img').count()).toBe(0);
    } finally {
      page.off('console', listen);
    }
    expect(messages.filter((m) => /XSLT/i.test(m))).toEqual([]);
  });
});
