/// <reference lib="dom" />
// The built site in a real browser: Debian's Chromium driven by playwright-core, pages
// checked by axe-core. The site is the demo's first product (pulled from the emulator, three
// local entries pushed) plus a dozen older local entries, so the index has a second page.
// External URLs (the demo's logo and images) are answered locally: no network.
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../src/core/config.js';
import { buildSite } from '../../src/site/pipeline/build.js';
import { seriousViolations as seriousViolationsOf } from '../helpers/browser/axe.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { runCli, tempDir } from '../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';
import { dailyEntries, writeContent } from '../helpers/site/site-fixture.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));
const PLACEHOLDER = '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"><rect width="100%" height="100%" fill="#c7d2fe"/></svg>';
const EMBED = '<!doctype html><html lang="en"><head><title>Product</title></head><body><main><h1>Our product</h1><div id="whats-new"></div></main><script src="/widget.js" data-target="#whats-new" defer></script></body></html>';

interface Problem {
  page: string;
  text: string;
}

describe('the site in Chromium', () => {
  let dir: string;
  let cleanupDir: () => Promise<void>;
  let server: StaticServer;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  const consoleErrors: Problem[] = [];

  /** axe-core's serious and critical violations on the current page. */
  async function seriousViolations(): Promise<string[]> {
    return seriousViolationsOf(page);
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    ({ dir, cleanup: cleanupDir } = await tempDir());
    // The demo: emulator, pull, push, build (only its content is used here).
    const demo = await runCli(['sync'], { cwd: dir, timeoutMs: 120_000 });
    expect(demo.code, demo.stderr).toBe(0);
    // A dozen older entries of our own, so that the index has a second page.
    const older = await writeContent(join(dir, 'older'), { entries: dailyEntries(12, '2024-06-30', (i) => (i % 2 ? ['Fix'] : [])) });
    const contentDir = join(dir, '.demo/content/app');
    await cp(join(older, 'entries'), join(contentDir, 'entries'), { recursive: true });
    // The server first: the site's absolute URLs (latest.json, feeds) carry its port.
    server = await serveStatic(join(dir, 'site'), { '/embed.html': { type: 'text/html; charset=utf-8', body: EMBED } });
    const built = await buildSite({ contentDir, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, 'site'), siteUrl: `${server.url}/`, root: dir });
    expect(built.indexed).toBeGreaterThan(20);
    await mkdir(ARTIFACTS, { recursive: true });
    ({ context, close: closeBrowser } = await launchChromium({ colorScheme: 'light' }));
    // The demo's images are served with the site; anything off this machine is answered here, never fetched.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: PLACEHOLDER }));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push({ page: page.url(), text: m.text() });
    });
    page.on('pageerror', (e) => consoleErrors.push({ page: page.url(), text: e.message }));
  });

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await cleanupDir?.();
  });

  it('opens the index: the newest 20 entries, no serious accessibility problem', async () => {
    await page.goto(`${server.url}/`);
    await expect(page.title()).resolves.toBe('Lumen');
    expect(await page.locator('h1').first().textContent()).toBe('Lumen changelog');
    expect(await page.locator('article.entry').count()).toBe(20);
    expect(await page.locator('.entry-title').first().textContent()).toBe('Lumen for iOS & Android: dashboards on the go');
    await shot('index');
    expect(await seriousViolations()).toEqual([]);
  });

  it('follows an entry: its own page, with previous/next', async () => {
    await page.getByRole('link', { name: 'Funnel step timing' }).first().click();
    await page.waitForURL(`${server.url}/entries/funnel-step-timing/`);
    expect(await page.locator('h1').textContent()).toBe('Funnel step timing');
    expect(await page.locator('time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await expect(page.locator('a[rel="next"]').textContent()).resolves.toContain('Plan limits, at a glance');
    await expect(page.locator('a[rel="prev"]').count()).resolves.toBe(1);
    await shot('entry');
    expect(await seriousViolations()).toEqual([]);
  });

  it('follows a tag: the tag page lists the entry', async () => {
    await page.locator('.entry-header .tag', { hasText: 'API' }).click();
    await page.waitForURL(`${server.url}/tags/api/`);
    expect(await page.locator('h1').textContent()).toContain('API');
    expect(await page.locator('.entry-row-title').allTextContents()).toContain('Funnel step timing');
    await shot('tag');
    expect(await seriousViolations()).toEqual([]);
  });

  it('goes to the next page of the index', async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Older updates →' }).click();
    await page.waitForURL(`${server.url}/page/2/`);
    const titles = await page.locator('.entry-title').allTextContents();
    expect(titles.length).toBeGreaterThan(0);
    expect(titles).toContain('Update 1');
    expect(await page.getByRole('link', { name: '← Newer updates' }).getAttribute('href')).toBe('/');
    await shot('page-2');
    expect(await seriousViolations()).toEqual([]);
  });

  it('runs a search from the header and sees a result', async () => {
    await page.goto(`${server.url}/entries/dark-mode/`);
    await page.getByLabel('Search entries').fill('funnel');
    await page.getByLabel('Search entries').press('Enter');
    await page.waitForURL(`${server.url}/search/?q=funnel`);
    const result = page.locator('.pagefind-ui__result-link', { hasText: 'Funnel step timing' });
    await result.waitFor({ timeout: 15_000 });
    expect(await result.getAttribute('href')).toBe('/entries/funnel-step-timing/');
    await shot('search');
    expect(await seriousViolations()).toEqual([]);
  });

  it('switches to the dark colour scheme', async () => {
    await page.goto(`${server.url}/entries/funnel-step-timing/`);
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(light).toBe('rgb(255, 255, 255)');
    expect(dark).toBe('rgb(13, 16, 23)');
    await shot('entry-dark');
    expect(await seriousViolations()).toEqual([]);
    await page.goto(`${server.url}/`);
    await shot('index-dark');
    expect(await seriousViolations()).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('answers an unknown address with the 404 page', async () => {
    const url = `${server.url}/entries/no-such-entry/`;
    const response = await page.goto(url);
    expect(response?.status()).toBe(404);
    // The browser logs the 404 of the page itself: expected here, and only here.
    const own = consoleErrors.findIndex((e) => e.page === url && e.text.includes('status of 404'));
    expect(own).toBeGreaterThanOrEqual(0);
    consoleErrors.splice(own, 1);
    expect(await page.locator('h1').textContent()).toBe('This page is not here');
    await shot('404');
    expect(await seriousViolations()).toEqual([]);
  });

  it('shows the "What\'s new" badge from latest.json in an embedding page', async () => {
    // The panel in depth (unread counts, keyboard, CORS): widget.test.ts.
    await page.goto(`${server.url}/embed.html`);
    const badge = page.locator('#whats-new changelog-widget button:enabled');
    await badge.click();
    const newest = page.getByRole('dialog', { name: "What's new" }).locator('li a').first();
    expect(await newest.textContent()).toContain('Lumen for iOS & Android: dashboards on the go');
    await shot('widget');
    await newest.click();
    await page.waitForURL(`${server.url}/entries/mobile-dashboards/`);
    await page.goto(`${server.url}/embed.html`);
    await page.locator('#whats-new changelog-widget button:enabled').waitFor();
    expect(await page.locator('#whats-new changelog-widget button').getAttribute('aria-label')).toBe("What's new"); // read: no count
  });

  it('reads an entry with JavaScript off', async () => {
    const p = await context.newPage();
    const cdp = await context.newCDPSession(p);
    await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
    await p.goto(`${server.url}/entries/funnel-step-timing/`);
    expect(await p.locator('h1').textContent()).toBe('Funnel step timing');
    expect(await p.locator('.prose').textContent()).toContain('Step timing works on all existing funnels');
    expect(await p.locator('script').count()).toBe(0);
    await p.close();
  });

  it('logged no console error on any page', () => {
    expect(consoleErrors).toEqual([]);
  });

  // GitHub Pages serves a project site at https://OWNER.github.io/REPO/: the same content,
  // built for a site URL with a path and served under that path only.
  describe('under a base path (/changelog/), as GitHub Pages serves a project site', () => {
    let prefixed: StaticServer;
    let base: string;
    const EMBED_PREFIXED = EMBED.replace('src="/widget.js"', 'src="/changelog/widget.js"');

    beforeAll(async () => {
      prefixed = await serveStatic(join(dir, 'site-prefixed'), { '/embed.html': { type: 'text/html; charset=utf-8', body: EMBED_PREFIXED } }, { prefix: '/changelog/' });
      base = `${prefixed.url}/changelog/`;
      const built = await buildSite({ contentDir: join(dir, '.demo/content/app'), siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, 'site-prefixed'), siteUrl: base, root: dir });
      expect(built.indexed).toBeGreaterThan(20);
      consoleErrors.length = 0;
    });
    afterAll(async () => {
      await prefixed?.close();
    });

    it('opens the index styled, and searches from the header: a result that opens its entry', async () => {
      await page.goto(base);
      expect(await page.locator('article.entry').count()).toBe(20);
      // The stylesheet bundle loaded from under the prefix (unstyled, the body is transparent).
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
      await page.getByLabel('Search entries').fill('funnel');
      await page.getByLabel('Search entries').press('Enter');
      await page.waitForURL(`${base}search/?q=funnel`);
      const result = page.locator('.pagefind-ui__result-link', { hasText: 'Funnel step timing' });
      await result.waitFor({ timeout: 15_000 });
      expect(await result.getAttribute('href')).toBe('/changelog/entries/funnel-step-timing/');
      await result.click();
      await page.waitForURL(`${base}entries/funnel-step-timing/`);
      expect(await page.locator('h1').textContent()).toBe('Funnel step timing');
      await shot('prefix-entry');
    });

    it('shows the newest entry in the "What\'s new" badge and opens it', async () => {
      await page.goto(`${prefixed.url}/embed.html`);
      await page.locator('#whats-new changelog-widget button:enabled').click();
      const newest = page.getByRole('dialog', { name: "What's new" }).locator('li a').first();
      expect(await newest.textContent()).toContain('Lumen for iOS & Android: dashboards on the go');
      await newest.click();
      await page.waitForURL(`${base}entries/mobile-dashboards/`);
      expect(await page.locator('h1').textContent()).toBe('Lumen for iOS & Android: dashboards on the go');
    });

    it('answers an unknown deep address with the 404 page, whose links work from there', async () => {
      const url = `${base}entries/no/such/entry/`;
      const response = await page.goto(url);
      expect(response?.status()).toBe(404);
      const own = consoleErrors.findIndex((e) => e.page === url && e.text.includes('status of 404'));
      expect(own).toBeGreaterThanOrEqual(0);
      consoleErrors.splice(own, 1);
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
      await page.getByRole('link', { name: 'See the latest updates' }).click();
      await page.waitForURL(base);
      expect(await page.locator('article.entry').count()).toBe(20);
    });

    it('logged no console error on any page', () => {
      expect(consoleErrors).toEqual([]);
    });
  });
});
