/// <reference lib="dom" />
// A tag's feeds as a reader finds them: Debian's Chromium (playwright-core) on the site served
// under a base path (/changelog/ only, as GitHub Pages serves a project site) goes from the
// tags page to a tag page, follows the tag page's feed links, and an independent parser
// (feedsmith) reads what it got. The items are the tag's entries, their ids URNs, and every
// link resolves under the base path. External URLs are answered locally: no network.
import { join } from 'node:path';
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from 'feedsmith';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../src/core/config.js';
import { buildSite } from '../../src/site/pipeline/build.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';
import { dailyEntries, writeContent } from '../helpers/site/site-fixture.js';

const PREFIX = '/changelog/';
const TAG = 'Fix & <Ops>';
const URN = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('tag feeds in Chromium, under a base path', () => {
  let dir = '';
  let cleanup: () => Promise<void> = () => Promise.resolve();
  let server: StaticServer;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  let site = '';
  /** The tag page's entry titles, as the browser shows them. */
  let listed: string[] = [];

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    // Twelve entries, every third tagged TAG (some with UUID identifiers, some with others, some none), the rest "New".
    const entries = dailyEntries(12, '2026-03-12', (i) => (i % 3 === 0 ? [TAG, 'New'] : ['New'])).map((e, i) => ({
      ...e,
      identifier: i % 4 === 0 ? undefined : i % 2 ? `0d6e2f3a-1b4c-4d5e-8f60-7182930000${String(i).padStart(2, '0')}` : `remote-${i}`,
    }));
    await writeContent(dir, { entries });
    // The server first: the site URL (feeds' absolute URLs) carries its port.
    server = await serveStatic(join(dir, '_site'), {}, { prefix: PREFIX });
    site = `${server.url}${PREFIX}`;
    await buildSite({ contentDir: join(dir, 'content'), siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_site'), siteUrl: site, root: dir, today: '2026-03-15', search: false });
    ({ context, close: closeBrowser } = await launchChromium());
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }));
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await cleanup();
  });

  it('goes from the tags page to the tag page, which links its three feeds in the head and in the page', async () => {
    await page.goto(`${site}tags/`);
    const row = page.locator('.tag-index li', { hasText: TAG });
    // The tags page lists the tag's feeds too.
    expect(await row.locator('.feeds a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))).toEqual(['feed.xml', 'rss.xml', 'feed.json'].map((f): unknown => expect.stringMatching(new RegExp(`^${site}tags/[a-z0-9-]+/${f.replace('.', '\\.')}$`))));
    await row.locator('a.tag').click();
    await page.waitForURL(/\/changelog\/tags\/[a-z0-9-]+\/$/);
    expect(await page.locator('h1').textContent()).toContain(TAG);
    listed = await page.locator('.entry-row-title').allTextContents();
    expect(listed).toHaveLength(4);
    const head = await page.locator('head link[rel="alternate"]').evaluateAll((ls) => ls.map((l) => ({ type: l.getAttribute('type'), href: (l as HTMLLinkElement).href, title: l.getAttribute('title') })));
    const tagFeeds = head.filter((l) => l.title?.includes(TAG));
    expect(tagFeeds.map((l) => l.type)).toEqual(['application/atom+xml', 'application/rss+xml', 'application/feed+json']);
    const visible = await page.locator('main .feeds a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(visible).toEqual(tagFeeds.map((l) => l.href));
    for (const href of visible) expect(href.startsWith(`${page.url()}`), href).toBe(true);
  });

  /** Clicks the tag page's visible feed link of `type` and returns what the browser received. */
  async function follow(type: string): Promise<{ url: string; body: string }> {
    const tagPage = page.url();
    const link = page.locator(`main .feeds a[type="${type}"]`);
    // The feed's own navigation response.
    const href = await link.evaluate((a) => (a as HTMLAnchorElement).href);
    const [response] = await Promise.all([page.waitForEvent('response', (r) => r.request().isNavigationRequest() && r.url() === href), link.click()]);
    expect(response.status()).toBe(200);
    // The feed's bytes as the server sent them, fetched again from its URL: the navigation's
    // own body (read through the browser) is sometimes the page Chromium makes of it instead
    // (its XML viewer's; seen in CI under load).
    const got = { url: response.url(), body: await (await fetch(response.url())).text() };
    await page.goto(tagPage);
    return got;
  }

  /** Every item link opens the entry's page under the base path (200, its title). */
  async function opens(links: Array<{ url: string; title: string }>): Promise<void> {
    for (const { url, title } of links) {
      expect(url.startsWith(`${site}entries/`), url).toBe(true);
      const r = await page.goto(url);
      expect(r?.status(), url).toBe(200);
      expect(await page.locator('h1').textContent()).toBe(title);
    }
  }

  it('the Atom feed: the tag’s entries, URN ids, links under the base path', async () => {
    const tagPage = page.url();
    const { url, body } = await follow('application/atom+xml');
    const feed = parseAtomFeed(body);
    const title = (t: unknown) => (typeof t === 'string' ? t : (t as { value: string }).value);
    expect(feed.links).toContainEqual(expect.objectContaining({ rel: 'self', href: url }));
    expect(feed.links).toContainEqual(expect.objectContaining({ rel: 'alternate', href: tagPage }));
    expect(feed.entries!.map((e) => title(e.title))).toEqual(listed);
    for (const e of feed.entries!) {
      expect(e.id).toMatch(URN);
      expect(e.categories!.map((c) => c.term)).toContain(TAG);
    }
    expect(new Set(feed.entries!.map((e) => e.id)).size).toBe(listed.length);
    await opens(feed.entries!.map((e) => ({ url: e.links![0]!.href!, title: title(e.title) })));
  });

  it('the RSS feed: the same items, guids that are URNs and not permalinks', async () => {
    await page.goto(`${site}tags/`);
    await page.locator('.tag-index li', { hasText: TAG }).locator('a.tag').click();
    await page.waitForURL(/\/changelog\/tags\/[a-z0-9-]+\/$/);
    const { body } = await follow('application/rss+xml');
    const feed = parseRssFeed(body);
    expect(feed.title).toBe(`Acme: ${TAG}`);
    expect(feed.items!.map((i) => i.title)).toEqual(listed);
    for (const i of feed.items!) {
      expect(i.guid).toEqual({ value: expect.stringMatching(URN) as unknown, isPermaLink: false });
      expect(i.categories!.map((c) => c.name)).toContain(TAG);
    }
    await opens(feed.items!.map((i) => ({ url: i.link!, title: i.title! })));
  });

  it('the JSON Feed: the same items and ids as the Atom feed', async () => {
    await page.goto(`${site}tags/`);
    await page.locator('.tag-index li', { hasText: TAG }).locator('a.tag').click();
    await page.waitForURL(/\/changelog\/tags\/[a-z0-9-]+\/$/);
    const atom = parseAtomFeed((await follow('application/atom+xml')).body);
    const { url, body } = await follow('application/feed+json');
    const feed = parseJsonFeed(JSON.parse(body));
    expect(feed.feed_url).toBe(url);
    expect(feed.items!.map((i) => i.title)).toEqual(listed);
    expect(feed.items!.map((i) => i.id)).toEqual(atom.entries!.map((e) => e.id));
    for (const i of feed.items!) expect(i.tags).toContain(TAG);
    await opens(feed.items!.map((i) => ({ url: i.url!, title: i.title! })));
  });
});
