/// <reference lib="dom" />
// Pulled images on the built site in Chromium: entries whose images were
// on the service's image host show them from the site itself under its base path (the copies
// pull made in content/media/, encoded by the build under /img/, src/site/render/images.ts), with the
// emulator stopped; the sanitised SVG, opened by its own URL, runs no script.
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { EmulatorStore } from '../../src/emulator/store.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { runCli, tempDir } from '../helpers/process/cli.js';
import { PNG_3X2, SVG_WITH_SCRIPT } from '../helpers/sync/media.js';
import { serveStatic, type StaticServer } from '../helpers/browser/static-server.js';

describe('pulled images in Chromium', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: StaticServer;
  let context: BrowserContext;
  let closeBrowser: () => Promise<void>;
  /** Requests the browser made outside the site's server. */
  const outside: string[] = [];

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    const store = new EmulatorStore();
    const ws = store.addWorkspace({ name: 'Media', tokens: ['t'] });
    store.media.set('shot.png', { type: 'image/png', body: PNG_3X2 });
    store.media.set('evil.svg', { type: 'image/svg+xml', body: Buffer.from(SVG_WITH_SCRIPT) });
    store.insertEntry(ws, { title: 'Shots', slug: 'shots', publish_at: '2026-01-02', content: '<p>Two.</p><p><img src="{{media}}/shot.png" alt="A screenshot"></p><p><img src="{{media}}/evil.svg" alt="A diagram"></p>' });
    const emu = await startEmulator({ port: 0, store });
    const pulled = await runCli(['pull'], { cwd: dir, env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 't' } });
    await emu.close();
    expect(pulled.code, pulled.stderr).toBe(0);
    const built = await runCli(['build'], { cwd: dir, env: { CHANGELOG_SITE_URL: 'https://example.github.io/changelog/' }, timeoutMs: 120_000 });
    expect(built.code, built.stderr).toBe(0);
    server = await serveStatic(join(dir, '_site'), {}, { prefix: '/changelog/' });
    ({ context, close: closeBrowser } = await launchChromium());
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(server.url)) return route.continue();
      outside.push(url);
      return route.abort();
    });
  });
  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await cleanup?.();
  });

  it('the entry page shows both images from the site (/changelog/img/), and loads nothing from elsewhere', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/changelog/entries/shots/`, { waitUntil: 'load' });
    // Lazy images near the top load at once; wait for them to settle (loaded or broken).
    await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLImageElement>('main img')).every((i) => i.complete));
    const images = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('main img')).map((i) => ({ path: new URL(i.currentSrc || i.src).pathname, complete: i.complete, width: i.naturalWidth, shown: i.getBoundingClientRect().width, alt: i.alt })),
    );
    expect(images.map((i) => i.alt)).toEqual(['A screenshot', 'A diagram']);
    for (const i of images) {
      expect(i.path).toMatch(/^\/changelog\/img\/[^/]+\.(png|webp|svg)$/);
      expect(i.complete && i.width > 0, i.path).toBe(true);
    }
    // Shown at the file's own width (a `srcset` makes naturalWidth the width it is drawn for).
    expect(images[0]!.shown).toBe(3);
    expect(outside.filter((u) => !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });

  it('the SVG opened by its own URL (the site origin) runs no script', async () => {
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${server.url}/changelog/entries/shots/`, { waitUntil: 'load' });
    const svgPath = await page.evaluate(() => new URL(document.querySelector<HTMLImageElement>('main img[alt="A diagram"]')!.src).pathname);
    await page.goto(`${server.url}${svgPath}`, { waitUntil: 'load' });
    const found = await page.evaluate(() => ({
      scripts: document.querySelectorAll('script').length,
      handlers: Array.from(document.querySelectorAll('*')).filter((el) => Array.from(el.attributes).some((a) => a.name.startsWith('on'))).length,
      foreign: document.getElementsByTagName('foreignObject').length,
      rects: document.querySelectorAll('rect').length,
    }));
    expect(found).toEqual({ scripts: 0, handlers: 0, foreign: 0, rects: 1 });
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
