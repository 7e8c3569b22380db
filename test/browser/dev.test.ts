/// <reference lib="dom" />
// `changelog-sync dev` in a real browser, with no token: the writer's own entry is on the
// page, and saving a new title changes the open page by itself (Eleventy's reload client),
// with no reload by the test; the same for the demo under its git-ignored .demo/.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { DevProcess } from '../helpers/process/dev-process.js';


describe('dev in Chromium: a saved entry changes the open page', () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  const dirs: Array<() => Promise<void>> = [];
  const devs: DevProcess[] = [];

  beforeAll(async () => {
    ({ context, close: closeBrowser } = await launchChromium());
    // Loopback only: anything else would be a request off this machine.
    await context.route(/^https?:\/\/(?!(127\.0\.0\.1|localhost)[:/])/, (route) => route.abort());
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    for (const d of devs) await d.stop();
    await closeBrowser?.();
    for (const c of dirs) await c();
  });

  /** A repository (a temp dir that git-ignores .demo/), and `dev` serving it. */
  async function startDev(setup: (dir: string) => Promise<void>): Promise<{ dir: string; url: string }> {
    const { dir, cleanup } = await tempDir();
    dirs.push(cleanup);
    await writeFile(join(dir, '.gitignore'), '.demo/\n_site/\n');
    await setup(dir);
    const dev = new DevProcess(dir);
    devs.push(dev);
    const url = (await dev.output(/Serving the changelog at (\S+)/, 'the dev server'))[1]!;
    return { dir, url };
  }

  /** Resolves when the open page's `<h1>` reads `text`, without the test reloading it. */
  const headingBecomes = (text: string) => page.waitForFunction((t) => document.querySelector('h1')?.textContent?.trim() === t, text, { timeout: 30_000 });

  it("the writer's own entry, retitled while the page is open", async () => {
    const entry = (title: string) => `---\ntitle: ${title}\nslug: my-first-entry\npublish_at: 2026-11-01\nis_published: true\n---\n\nWritten with no token.\n`;
    const { dir, url } = await startDev(async (d) => {
      await mkdir(join(d, 'content/entries'), { recursive: true });
      await writeFile(join(d, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry'));
    });
    await page.goto(new URL('/entries/my-first-entry/', url).href);
    expect(await page.locator('h1').textContent()).toBe('My first entry');
    // Marks this document: a reload by the page's client replaces it (the mark is gone).
    await page.evaluate(() => ((window as unknown as { mark: number }).mark = 1));
    await writeFile(join(dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry, retitled'));
    await headingBecomes('My first entry, retitled');
    expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBeUndefined();
  });

  it("an entry broken while its page is open: the page reloads with the problem at its top, and back once fixed", async () => {
    const entry = (publishAt: string) => `---\ntitle: Broken soon\nslug: broken-soon\npublish_at: ${publishAt}\nis_published: true\n---\n\nShown until it breaks.\n`;
    const { dir, url } = await startDev(async (d) => {
      await mkdir(join(d, 'content/entries'), { recursive: true });
      await writeFile(join(d, 'content/entries/2026-11-01-broken-soon.md'), entry('2026-11-01'));
    });
    await page.goto(new URL('/entries/broken-soon/', url).href);
    expect(await page.locator('h1').textContent()).toBe('Broken soon');
    await writeFile(join(dir, 'content/entries/2026-11-01-broken-soon.md'), entry('01/11/2026'));
    await page.locator('#changelog-sync-problems').waitFor({ timeout: 30_000 });
    expect(await page.locator('#changelog-sync-problems').textContent()).toContain('entries/2026-11-01-broken-soon.md:4 publish_at: must be a date written YYYY-MM-DD');
    expect(await page.locator('body').textContent()).not.toContain('Shown until it breaks.');
    await writeFile(join(dir, 'content/entries/2026-11-01-broken-soon.md'), entry('2026-11-01'));
    await headingBecomes('Broken soon');
    expect(await page.locator('#changelog-sync-problems').count()).toBe(0);
  });

  it('the demo, under the git-ignored .demo/preview/, with its images loaded', async () => {
    const { dir, url } = await startDev(() => Promise.resolve());
    await page.goto(new URL('/entries/mobile-dashboards/', url).href);
    expect(await page.locator('h1').textContent()).toBe('Lumen for iOS & Android: dashboards on the go');
    // Every image loaded (a broken one has naturalWidth 0).
    const images = await page.locator('img').evaluateAll((imgs) => (imgs as HTMLImageElement[]).map((i) => ({ src: i.currentSrc, ok: i.complete && i.naturalWidth > 0 })));
    expect(images.length).toBeGreaterThan(1);
    expect(images.filter((i) => !i.ok)).toEqual([]);
    const file = join(dir, '.demo/preview/content/entries/2026-11-22-mobile-dashboards.md');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^title: .*$/m, 'title: Dashboards in your pocket'));
    await headingBecomes('Dashboards in your pocket');
  });
});
