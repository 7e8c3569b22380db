/// <reference lib="dom" />
// The "What's new" widget embedded the way a product embeds it: the changelog site built
// for a base path (/changelog/) and served on one loopback origin, the product's page on
// another, so latest.json is a real cross-origin read (allowed with
// `Access-Control-Allow-Origin: *`, as GitHub Pages sends it, or not at all). Debian's
// Chromium through playwright-core, with the page's clock fixed so "recent" is exact.
import { mkdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import axe from 'axe-core';
import type { BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import sirv from 'sirv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../src/core/config.js';
import { buildSite } from '../../src/site/pipeline/build.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { type EntrySpec, writeContent } from '../helpers/site/site-fixture.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));
const TODAY = '2026-03-20';
const PREFIX = '/changelog/';
const HOSTILE = '<img src=x onerror="window.pwned=1"> Roles & "teams" <b>bold</b>';
const ENTRIES: EntrySpec[] = [
  { title: 'Faster exports', date: '2026-03-19', slug: 'faster-exports', identifier: 'aaaaaaaa-0000-4000-8000-000000000001' },
  { title: HOSTILE, date: '2026-03-10', slug: 'roles' },
  { title: 'Audit log', date: '2026-02-25', slug: 'audit-log', identifier: 'aaaaaaaa-0000-4000-8000-000000000003' },
  { title: 'Webhooks', date: '2026-01-15', slug: 'webhooks', identifier: 'aaaaaaaa-0000-4000-8000-000000000004' },
  { title: 'Single sign-on', date: '2025-12-01', slug: 'sso', identifier: 'aaaaaaaa-0000-4000-8000-000000000005' },
  { title: 'Not in the panel', date: '2025-11-01', slug: 'sixth', identifier: 'aaaaaaaa-0000-4000-8000-000000000006' },
];
/** Published after the first visit, on the same day as the newest entry the reader saw. */
const LATER: EntrySpec = { title: 'Dark mode for reports', date: '2026-03-19', slug: 'dark-reports', identifier: 'aaaaaaaa-0000-4000-8000-000000000007' };
const WIDGET_CSS_PROBE = '.count{background:rgb(1,2,3)}'; // a host rule on a class the widget also uses

/** The product's page: a link before and after the widget, and rules that would break it if they reached in. */
function hostPage(site: string, attributes = ''): string {
  return `<!doctype html><html lang="en"><head><title>Product</title><style>
    button{background:lime!important;border-radius:0!important} a{color:#7f1d1d!important} ul{padding:60px!important}
    ${WIDGET_CSS_PROBE} body{font:20px/2 serif;color:#222}
  </style></head><body><main><h1>Our product</h1><a href="#top">Before</a>
  <div id="whats-new"></div><a href="#after" id="after">After</a>
  <button class="count" id="host-button">A button of the product</button></main>
  <script src="${site}widget.js" data-target="#whats-new" ${attributes} defer></script></body></html>`;
}

interface Served {
  url: string;
  server: Server;
}

async function listen(server: Server): Promise<Served> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the "What\'s new" widget on another origin', () => {
  let dir: string;
  let cleanupDir: () => Promise<void>;
  let site: Served;
  let product: Served;
  let siteBase: string;
  let allowCors = true;
  /** What the site answers for latest.json instead of the file, when set. */
  let latestOverride: { status: number; body: string } | undefined;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  const widgetLines: string[] = [];
  const pages: Record<string, string> = {};

  const badge = (p: Page = page) => p.locator('changelog-widget button');
  const panel = (p: Page = page) => p.getByRole('dialog', { name: "What's new" });

  async function build(entries: EntrySpec[]): Promise<void> {
    const content = await writeContent(dir, { entries });
    await buildSite({ contentDir: content, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, 'site'), siteUrl: siteBase, root: dir, today: TODAY, search: false });
  }

  /** The page of the product, on its own origin, with the widget's console lines collected. */
  async function visit(path = '/', colorScheme: 'light' | 'dark' = 'light'): Promise<void> {
    await page.emulateMedia({ colorScheme });
    await page.goto(`${product.url}${path}`);
    await page.locator('changelog-widget').waitFor({ state: 'attached' });
  }

  /** A visit that ends in the widget's console line: exactly one. */
  async function visitUntilWidgetLine(): Promise<void> {
    const line = page.waitForEvent('console', (m) => m.text().startsWith('changelog widget'));
    await visit();
    await line;
    expect(widgetLines).toHaveLength(1);
  }

  /** The focused element, through the widget's shadow root. */
  function focused(p: Page = page): Promise<string> {
    return p.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}:${(el.textContent ?? '').trim().slice(0, 40)}` : '';
    });
  }

  async function seriousViolations(): Promise<string[]> {
    await page.addScriptTag({ content: axe.source });
    const result = await page.evaluate(async () => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  }

  async function shot(name: string): Promise<void> {
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  }

  beforeAll(async () => {
    ({ dir, cleanup: cleanupDir } = await tempDir());
    const files = sirv(join(dir, 'site'), { dev: true, etag: false });
    site = await listen(
      createServer((req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (!path.startsWith(PREFIX)) {
          res.writeHead(404).end();
          return;
        }
        // The header the README tells a self-hosted site to send (GitHub Pages sends it).
        if (allowCors) res.setHeader('Access-Control-Allow-Origin', '*');
        if (latestOverride && path === `${PREFIX}latest.json`) {
          res.writeHead(latestOverride.status, { 'content-type': 'application/json' }).end(latestOverride.body);
          return;
        }
        req.url = `/${(req.url ?? '/').slice(PREFIX.length)}`;
        files(req, res, () => {
          res.writeHead(404).end();
        });
      }),
    );
    siteBase = `${site.url}${PREFIX}`;
    product = await listen(
      createServer((req, res) => {
        const body = pages[new URL(req.url ?? '/', 'http://x').pathname];
        if (body) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
        else res.writeHead(404).end();
      }),
    );
    pages['/'] = hostPage(siteBase);
    pages['/light.html'] = hostPage(siteBase, 'data-theme="light" data-label="Updates"');
    pages['/dark.html'] = hostPage(siteBase, 'data-theme="dark"');
    pages['/floating.html'] = hostPage(siteBase).replace(' data-target="#whats-new"', '');
    await build(ENTRIES);
    ({ context, close: closeBrowser } = await launchChromium({ colorScheme: 'light' }));
    // The site's pages name an external logo: answered here, never fetched.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 404, body: '' }));
    page = context.pages()[0] ?? (await context.newPage());
    await page.clock.setFixedTime(new Date(`${TODAY}T12:00:00Z`));
    page.on('console', (m: ConsoleMessage) => {
      if (m.text().startsWith('changelog widget')) widgetLines.push(`${m.type()}: ${m.text()}`);
    });
  });

  afterAll(async () => {
    await closeBrowser?.();
    await new Promise((resolve) => site?.server.close(resolve));
    await new Promise((resolve) => product?.server.close(resolve));
    await cleanupDir?.();
  });

  it('first visit: the entries of the last 30 days are unread, and the count is in the badge\'s name', async () => {
    await visit();
    // Three of the five are within 30 days of the reader's today (2026-03-20).
    const button = page.getByRole('button', { name: "What's new, 3 unread" });
    await expect(button.isEnabled()).resolves.toBe(true);
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await badge().locator('.count').textContent()).toBe('3');
    // The product's rules do not reach in, and the widget's do not reach out.
    const styles = await page.evaluate(() => {
      const b = document.querySelector('changelog-widget')!.shadowRoot!.querySelector('button')!;
      const own = document.getElementById('host-button')!;
      return { widget: getComputedStyle(b).backgroundColor, radius: getComputedStyle(b).borderTopLeftRadius, font: getComputedStyle(b).fontFamily, hostBg: getComputedStyle(own).backgroundColor, hostRadius: getComputedStyle(own).borderTopLeftRadius };
    });
    expect(styles).toMatchObject({ widget: 'rgb(17, 24, 39)', radius: '999px', hostBg: 'rgb(0, 255, 0)', hostRadius: '0px' });
    expect(styles.font).not.toContain('serif,');
    expect(styles.font).toContain('system-ui');
  });

  it('opens by keyboard: focus in the panel, the newest five linking to their pages under the base path', async () => {
    await page.getByRole('link', { name: 'Before' }).focus();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe("button:What's new3");
    await page.keyboard.press('Enter');
    await panel().waitFor();
    expect(await badge().getAttribute('aria-expanded')).toBe('true');
    const controls = await badge().getAttribute('aria-controls');
    expect(await page.evaluate((id) => document.querySelector('changelog-widget')!.shadowRoot!.getElementById(id!)?.getAttribute('role'), controls)).toBe('dialog');
    // Opening marks them read: the count leaves the badge's name.
    expect(await badge().getAttribute('aria-label')).toBe("What's new");
    const links = panel().locator('li a');
    expect(await links.count()).toBe(5);
    const rows = await links.evaluateAll((as) =>
      as.map((a) => ({ href: (a as HTMLAnchorElement).href, title: a.querySelector('.entry-title')!.textContent, isNew: !!a.querySelector('.new'), date: a.querySelector('time')!.getAttribute('datetime') })),
    );
    expect(rows).toEqual(
      ENTRIES.slice(0, 5).map((e, i) => ({ href: `${siteBase}entries/${e.slug}/`, title: e.title, isNew: i < 3, date: e.date })),
    );
    // Titles are text: the hostile one made no element and ran nothing.
    expect(await panel().locator('img, b').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await focused()).toBe('a:NewFaster exportsMar 19, 2026');
    expect(await panel().getByRole('link', { name: 'All updates' }).getAttribute('href')).toBe(siteBase);
    await shot('widget-panel-light');
    expect(await seriousViolations()).toEqual([]);
  });

  it('Tab walks the panel and leaves it closed; Space opens, Escape closes and gives focus back', async () => {
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual([`a:New${HOSTILE}`.slice(0, 42), 'a:NewAudit logFeb 25, 2026', 'a:WebhooksJan 15, 2026', 'a:Single sign-onDec 1, 2025', 'a:All updates']);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('a#after:After');
    expect(await panel().isHidden()).toBe(true);
    expect(await badge().getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Shift+Tab'); // from "After" back to the badge: the closed panel takes no focus
    expect(await focused()).toBe("button:What's new");
    await page.keyboard.press('Space');
    await panel().waitFor();
    await page.keyboard.press('Escape');
    expect(await panel().isHidden()).toBe(true);
    expect(await focused()).toBe("button:What's new");
  });

  it('follows an entry link across origins to its page under the base path', async () => {
    await badge().click();
    await panel().getByRole('link', { name: /Audit log/ }).click();
    await page.waitForURL(`${siteBase}entries/audit-log/`);
    expect(await page.locator('h1').textContent()).toBe('Audit log');
  });

  it('second visit after a new entry: one unread, the new one', async () => {
    await build([...ENTRIES, LATER]);
    const latest = JSON.parse(await readFile(join(dir, 'site/latest.json'), 'utf8')) as { entries: Array<{ title: string }> };
    expect(latest.entries.map((e) => e.title)).toContain(LATER.title);
    await visit();
    await page.getByRole('button', { name: "What's new, 1 unread" }).waitFor();
    await badge().focus();
    await page.keyboard.press('Enter');
    await panel().waitFor();
    const fresh = await panel().locator('li a:has(.new) .entry-title').allTextContents();
    expect(fresh).toEqual([LATER.title]);
    expect(await panel().locator('li a .entry-title').allTextContents()).toEqual([ENTRIES[0]!.title, LATER.title, HOSTILE, 'Audit log', 'Webhooks']);
    // A third visit: nothing new (the badge is enabled once latest.json is read).
    await visit();
    await page.locator('changelog-widget button:enabled').waitFor();
    expect(await badge().getAttribute('aria-label')).toBe("What's new");
    expect(await badge().locator('.count').isHidden()).toBe(true);
  });

  it('dark: follows prefers-color-scheme, or the data-theme option; no serious axe violation', async () => {
    await visit('/', 'dark');
    await badge().click();
    await panel().waitFor();
    const dark = await page.evaluate(() => {
      const root = document.querySelector('changelog-widget')!.shadowRoot!;
      return { badge: getComputedStyle(root.querySelector('button')!).backgroundColor, panel: getComputedStyle(root.querySelector('.panel')!).backgroundColor, text: getComputedStyle(root.querySelector('.entry-title')!).color };
    });
    await shot('widget-panel-dark');
    expect(dark).toEqual({ badge: 'rgb(243, 244, 246)', panel: 'rgb(17, 24, 39)', text: 'rgb(243, 244, 246)' });
    expect(await seriousViolations()).toEqual([]);
    // data-theme="light" on a dark reader's screen; data-label names the badge and the panel.
    await visit('/light.html', 'dark');
    await page.getByRole('button', { name: 'Updates' }).click();
    await page.getByRole('dialog', { name: 'Updates' }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('changelog-widget')!.shadowRoot!.querySelector('.panel')!).backgroundColor)).toBe('rgb(255, 255, 255)');
    expect(await seriousViolations()).toEqual([]);
    // And data-theme="dark" on a light reader's screen.
    await visit('/dark.html', 'light');
    await badge().click();
    await panel().waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('changelog-widget')!.shadowRoot!.querySelector('.panel')!).backgroundColor)).toBe('rgb(17, 24, 39)');
  });

  it('floats in the corner without data-target, and its panel opens upward inside the window', async () => {
    await visit('/floating.html');
    await badge().click();
    await panel().waitFor();
    const box = await panel().boundingBox();
    const view = page.viewportSize()!;
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(view.width);
    expect(box!.y + box!.height).toBeLessThan((await badge().boundingBox())!.y);
    // A click outside closes it.
    await page.locator('h1').click();
    expect(await panel().isHidden()).toBe(true);
    expect(await badge().getAttribute('aria-expanded')).toBe('false');
  });

  it('without cross-origin reads: one console line naming CORS and the README section; the badge stays inert', async () => {
    expect(widgetLines).toEqual([]);
    allowCors = false;
    try {
      await visitUntilWidgetLine();
      expect(widgetLines[0]).toMatch(/^error: changelog widget: cannot read http:\/\/127\.0\.0\.1:\d+\/changelog\/latest\.json .*CORS.*Access-Control-Allow-Origin.*README\.md.*The "What's new" widget, Cross-origin reads \(CORS\)/);
      expect(await badge().isDisabled()).toBe(true);
      await badge().click({ force: true });
      expect(await page.locator('changelog-widget').evaluate((h) => h.shadowRoot!.querySelector('.panel')!.hasAttribute('hidden'))).toBe(true);
      expect(widgetLines).toHaveLength(1);
    } finally {
      allowCors = true;
    }
  });

  it('a latest.json that is missing or not JSON: the same one line, with the reason', async () => {
    for (const [override, reason] of [
      [{ status: 404, body: '' }, '(HTTP 404)'],
      [{ status: 200, body: '<!doctype html><title>Login</title>' }, '(not a latest.json document)'],
    ] as const) {
      widgetLines.length = 0;
      latestOverride = override;
      try {
        await visitUntilWidgetLine();
        expect(widgetLines[0]).toContain(`/changelog/latest.json ${reason}`);
        expect(await badge().isDisabled()).toBe(true);
      } finally {
        latestOverride = undefined;
      }
    }
  });

  it("carries over the earlier badge's memory: entries newer than the one opened from it are unread", async () => {
    await visit();
    await page.evaluate((key) => {
      localStorage.clear();
      localStorage.setItem(key, 'aaaaaaaa-0000-4000-8000-000000000003'); // Audit log
    }, `changelog-widget-seen:${siteBase}`);
    await visit();
    // Three newer than Audit log; the first-visit rule (30 days) would make it four.
    await page.getByRole('button', { name: "What's new, 3 unread" }).click();
    expect(await panel().locator('li a:has(.new) .entry-title').allTextContents()).toEqual([ENTRIES[0]!.title, LATER.title, HOSTILE]);
  });

  it('the README states its size: raw and gzip bytes', async () => {
    const source = await readFile(join(PACKAGED_SITE_DIR, 'widget.js'));
    const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const size = (n: number) => n.toLocaleString('en-US');
    const stated = `${size(source.length)} bytes (${size(gzipSync(source, { level: 9 }).length)} gzipped)`;
    expect(readme.includes(stated), `README.md should say "${stated}"`).toBe(true);
  });
});
