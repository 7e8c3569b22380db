/// <reference lib="dom" />
// Search over two bundles in a real browser (Debian's Chromium through playwright-core): a
// site built under a base path (/repo/) with a build cache, cold, then warm after one new
// entry, so that the search page merges the recent entries' bundle (`pagefind/recent/`)
// into the archive's (`pagefind/`). Pagefind UI finds a word only the new entry has and a
// word only an old one has, and its results link under the base path.
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../src/core/config.js';
import { buildSite, type BuildOptions } from '../../src/site/pipeline/build.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';
import { dailyEntries, writeContent } from '../helpers/site/site-fixture.js';

describe('search over the archive and the recent entries, under /repo/', () => {
  let cleanupDir: () => Promise<void>;
  let server: StaticServer;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  let base: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup: cleanupDir } = await tempDir());
    const old = dailyEntries(40, '2026-03-14').map((e, i) => (i === 7 ? { ...e, body: 'The wombat scheduler runs jobs at night.\n' } : e));
    const contentDir = await writeContent(dir, { entries: old });
    server = await serveStatic(join(dir, '_site'), {}, { prefix: '/repo/' });
    base = `${server.url}/repo/`;
    const options: BuildOptions = { contentDir, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_site'), siteUrl: base, root: dir, cacheDir: join(dir, 'cache') };
    const cold = await buildSite(options);
    expect(cold.search).toMatchObject({ indexed: 40, bundles: ['/pagefind/'] });
    await writeContent(dir, { entries: [{ title: 'Quokka telemetry', date: '2026-03-15', body: 'A quokka dashboard for the scheduler.\n' }] });
    const warm = await buildSite(options);
    expect(warm.search).toEqual({ indexed: 1, archived: 40, bundles: ['/pagefind/', '/pagefind/recent/'] });
    ({ context, close: closeBrowser } = await launchChromium());
    // The workspace's logo is off this machine: answered here, never fetched.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>' }));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
  });

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await cleanupDir?.();
  });

  /** The search page's result links for `query`, once Pagefind UI has loaded them (not its '. . .' placeholders). */
  async function results(query: string, expected: string): Promise<Array<{ text: string; href: string | null }>> {
    await page.goto(`${base}search/?q=${query}`);
    await page.locator('.pagefind-ui__result-link', { hasText: expected }).waitFor({ timeout: 15_000 });
    const links = page.locator('.pagefind-ui__result-link');
    return Promise.all((await links.all()).map(async (l) => ({ text: (await l.textContent()) ?? '', href: await l.getAttribute('href') })));
  }

  it('finds a word only the new entry has (the recent bundle), linked under /repo/', async () => {
    expect(await results('quokka', 'Quokka telemetry')).toEqual([{ text: 'Quokka telemetry', href: '/repo/entries/quokka-telemetry/' }]);
    await page.locator('.pagefind-ui__result-link').click();
    await page.waitForURL(`${base}entries/quokka-telemetry/`);
    expect(await page.locator('h1').textContent()).toBe('Quokka telemetry');
  });

  it('finds a word only an old entry has (the archive), linked under /repo/', async () => {
    expect(await results('wombat', 'Update 33')).toEqual([{ text: 'Update 33', href: '/repo/entries/update-33/' }]);
  });

  it('finds entries of both bundles for a word they share', async () => {
    const found = await results('scheduler', 'Quokka telemetry');
    expect(found.map((r) => r.href).sort()).toEqual(['/repo/entries/quokka-telemetry/', '/repo/entries/update-33/']);
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
