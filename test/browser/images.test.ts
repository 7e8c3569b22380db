/// <reference lib="dom" />
// Responsive entry images in Chromium (src/site/render/images.ts): a site built
// under /repo/ with a PNG, a JPEG and an SVG in content/images/ and a copy in content/media/,
// served under /repo/ only. On an entry page every image loads from the build's /img/
// files (Chromium picks the WebP source of a raster), and nothing shifts while they load:
// the image requests are held until the page has been laid out and painted, then let
// through, and Chromium's layout-shift entries are summed once every image has loaded.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../src/core/config.js';
import { buildSite } from '../../src/site/pipeline/build.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';
import { dailyEntries, drawnPng, writeContent } from '../helpers/site/site-fixture.js';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200"><rect width="320" height="200" fill="#0ea5e9"/></svg>\n';

describe('entry images in Chromium', () => {
  let dir: string;
  let cleanupDir: () => Promise<void>;
  let server: StaticServer;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;

  beforeAll(async () => {
    ({ dir, cleanup: cleanupDir } = await tempDir());
    const contentDir = await writeContent(dir, {
      images: { 'dashboard.png': drawnPng(1600, 900), 'diagram.svg': Buffer.from(SVG) },
      entries: [
        ...dailyEntries(2, '2026-03-10'),
        {
          title: 'Screenshots',
          date: '2026-03-12',
          body: 'Before the pictures.\n\n![The dashboard](/images/dashboard.png)\n\nBetween them.\n\n![Diagram](../images/diagram.svg)\n\n![Mirrored](/media/copy.png)\n\nAfter the pictures.\n',
        },
      ],
    });
    await mkdir(join(contentDir, 'media'));
    await writeFile(join(contentDir, 'media/copy.png'), drawnPng(600, 300, [22, 163, 74]));
    server = await serveStatic(join(dir, 'site'), {}, { prefix: '/repo/' });
    const built = await buildSite({ contentDir, siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, 'site'), siteUrl: `${server.url}/repo/`, root: dir, search: false });
    expect(built.images).toMatchObject({ encoded: 3, reused: 0 });
    ({ context, close: closeBrowser } = await launchChromium({ colorScheme: 'light' }));
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await cleanupDir?.();
  });

  it('loads every image from the /img/ files under the base path, WebP for the rasters, and shifts nothing as they load', async () => {
    // The three images' requests wait until the page has been painted without them.
    await page.setViewportSize({ width: 1280, height: 3000 }); // every image in view: lazy loading asks for all three
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let allAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (allAsked = resolve));
    const requested: string[] = [];
    await page.route(/\/repo\/img\//, async (route) => {
      if (requested.push(route.request().url()) === 3) allAsked();
      await released;
      await route.continue();
    });
    await page.addInitScript(() => {
      const w = window as unknown as { shifts: number };
      w.shifts = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.shifts += (entry as unknown as { value: number }).value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(`${server.url}/repo/entries/screenshots/`, { waitUntil: 'domcontentloaded' });
    await asked;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    release();
    await page.waitForFunction(() => Array.from(document.querySelectorAll('article img')).every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0));
    const images = await page.$$eval('article img', (imgs) => imgs.map((i) => ({ alt: i.getAttribute('alt'), src: (i as HTMLImageElement).currentSrc, width: i.getBoundingClientRect().width, height: i.getBoundingClientRect().height })));
    expect(images.map((i) => i.alt)).toEqual(['The dashboard', 'Diagram', 'Mirrored']);
    for (const image of images) {
      expect(image.src.startsWith(`${server.url}/repo/img/`), image.src).toBe(true);
      expect(image.height, image.alt!).toBeGreaterThan(0);
    }
    expect(images[0]!.src).toMatch(/\.webp$/);
    expect(images[1]!.src).toMatch(/\.svg$/);
    expect(images[2]!.src).toMatch(/\.webp$/);
    // The aspect ratio of each file, from the width and height the markup gave before it loaded.
    expect(images[0]!.width / images[0]!.height).toBeCloseTo(1600 / 900, 1);
    expect(images[2]!.width / images[2]!.height).toBeCloseTo(2, 1);
    expect(await page.evaluate(() => (window as unknown as { shifts: number }).shifts)).toBe(0);
  });
});
