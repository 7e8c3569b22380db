/// <reference lib="dom" />
// Reading the site in Chromium: highlighted code in every theme and both colour
// schemes, code blocks that scroll instead of wrapping on a phone, heading anchors, tag
// chips in the dark scheme, and the themed search page. The site: test/helpers/site/reading-site.ts.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_THEMES } from '../../src/site/data/themes.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { buildThemedSites, CODE_ENTRY, LONG_URL, type ThemedSites } from '../helpers/site/reading-site.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));

/** Computed colours of the code entry's first JavaScript block. */
interface CodeColours {
  plain: string;
  keyword: string;
  string: string;
  comment: string;
  background: string;
}

describe('reading the site in Chromium', () => {
  let cleanupDir: () => Promise<void>;
  let themed: ThemedSites;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup: cleanupDir } = await tempDir());
    themed = await buildThemedSites(dir);
    await mkdir(ARTIFACTS, { recursive: true });
    ({ context, close: closeBrowser } = await launchChromium({ colorScheme: 'light' }));
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 204, body: '' }));
    page = await context.newPage();
    page.on('pageerror', (e) => problems.push(e.message));
  });

  afterAll(async () => {
    await closeBrowser?.();
    await themed?.close();
    await cleanupDir?.();
  });

  async function codeColours(): Promise<CodeColours> {
    return page.evaluate(() => {
      const pre = document.querySelector('pre:has(code.language-js)')!;
      const colour = (sel: string) => getComputedStyle(pre.querySelector(sel)!).color;
      return { plain: getComputedStyle(pre).color, keyword: colour('.hljs-keyword'), string: colour('.hljs-string'), comment: colour('.hljs-comment'), background: getComputedStyle(pre).backgroundColor };
    });
  }

  for (const theme of BUILT_IN_THEMES) {
    it(`highlights code in the ${theme} theme, with other colours in the dark scheme`, async () => {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${themed.sites[theme]!.url}/entries/${CODE_ENTRY}/`);
      expect(await page.locator('script').count()).toBe(0); // highlighted at build time
      const light = await codeColours();
      await page.screenshot({ path: join(ARTIFACTS, `reading-${theme}-light.png`), fullPage: true });
      await page.emulateMedia({ colorScheme: 'dark' });
      const dark = await codeColours();
      await page.screenshot({ path: join(ARTIFACTS, `reading-${theme}-dark.png`), fullPage: true });
      await page.emulateMedia({ colorScheme: 'light' });
      for (const scheme of [light, dark]) {
        expect(new Set([scheme.plain, scheme.keyword, scheme.string, scheme.comment]).size).toBe(4);
      }
      expect(dark.keyword).not.toBe(light.keyword);
      expect(dark.string).not.toBe(light.string);
      expect(dark.background).not.toBe(light.background);
      // No highlighting for a language highlight.js does not know, nor for none.
      expect(await page.locator('code.language-brainfudge span').count()).toBe(0);
      expect(await page.locator('pre code:not([class]) span').count()).toBe(0);
      expect(await page.locator('code.language-brainfudge').textContent()).toBe('++++[>++++<-]>.\n');
    });

    it(`scrolls a long code line sideways on a phone in the ${theme} theme, never wrapping it`, async () => {
      await page.setViewportSize({ width: 360, height: 740 });
      try {
        await page.goto(`${themed.sites[theme]!.url}/entries/${CODE_ENTRY}/`);
        const block = page.locator('pre', { hasText: LONG_URL });
        const m = await block.evaluate((pre) => {
          const code = pre.querySelector('code')!;
          return {
            scrollWidth: pre.scrollWidth,
            clientWidth: pre.clientWidth,
            lineHeight: parseFloat(getComputedStyle(code).lineHeight),
            codeHeight: code.getBoundingClientRect().height,
            tabIndex: pre.tabIndex,
            pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          };
        });
        expect(m.scrollWidth).toBeGreaterThan(m.clientWidth);
        expect(m.codeHeight).toBeLessThan(m.lineHeight * 1.5); // one line: the URL is whole
        expect(m.tabIndex).toBe(0); // a keyboard can scroll it
        expect(m.pageOverflow).toBe(0); // the block scrolls, not the page
        await block.focus();
        await page.keyboard.press('ArrowRight');
        await expect.poll(() => block.evaluate((pre) => pre.scrollLeft)).toBeGreaterThan(0);
        await page.screenshot({ path: join(ARTIFACTS, `reading-${theme}-phone.png`) });
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });
  }

  it('gives headings stable ids and named anchor links that show on keyboard focus', async () => {
    await page.goto(`${themed.sites.commit!.url}/entries/${CODE_ENTRY}/`);
    const ids = await page.locator('.prose :is(h2, h3)').evaluateAll((hs) => hs.map((h) => h.id));
    expect(ids).toEqual(['bug-fixes', 'bug-fixes-1', 'new-features-and-enhancements']);
    const anchors = page.getByRole('link', { name: 'Link to this section: Bug Fixes' });
    expect(await anchors.count()).toBe(2);
    const second = anchors.nth(1);
    expect(await second.evaluate((a) => getComputedStyle(a).opacity)).toBe('0');
    // Tab from the code block before it: the next stop is the anchor, shown while focused.
    await page.locator('pre:has(code.language-js)').focus();
    await page.keyboard.press('Tab');
    expect(await second.evaluate((a) => a === document.activeElement)).toBe(true);
    await expect.poll(() => second.evaluate((a) => getComputedStyle(a).opacity)).toBe('1');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#bug-fixes-1$/);
    expect(await page.evaluate(() => document.querySelector(':target')?.textContent)).toBe('Bug Fixes');
  });

  it('keeps ids unique on an index page of many bodies, each anchor pointing at its heading', async () => {
    await page.goto(`${themed.sites.commit!.url}/`);
    const { ids, targets } = await page.evaluate(() => ({
      ids: Array.from(document.querySelectorAll('[id]'), (e) => e.id),
      targets: Array.from(document.querySelectorAll<HTMLAnchorElement>('a.heading-anchor'), (a) => a.hash.slice(1)),
    }));
    expect(ids.length).toBeGreaterThan(6);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(`${CODE_ENTRY}--bug-fixes-1`);
    expect(targets.length).toBe(8);
    for (const t of targets) expect(ids).toContain(t);
  });

  it('swaps a tag\'s own colours in the dark scheme and drops a pair too faint to read', async () => {
    await page.goto(`${themed.sites.commit!.url}/tags/`);
    const chip = (name: string) => page.locator('.tag', { hasText: name }).first();
    const colours = (name: string) => chip(name).evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]);
    const light = await colours('New');
    expect(light).toEqual(['rgb(220, 252, 231)', 'rgb(22, 101, 52)']);
    expect(await chip('Faint').getAttribute('style')).toBeNull();
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await colours('New')).toEqual([light[1], light[0]]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows one search box on the search page, results in the theme, excerpts without the title', async () => {
    await page.goto(`${themed.sites.paper!.url}/search/?q=alpha`);
    const results = page.locator('.pagefind-ui__result');
    await expect.poll(() => results.count(), { timeout: 15_000 }).toBe(5);
    expect(await page.locator('input[type="search"], input[type="text"]').count()).toBe(1);
    // Pagefind UI shows a result as a placeholder (". . .") until its fragment has loaded:
    // wait for the loaded excerpt's highlight before reading the result.
    await results.first().locator('.pagefind-ui__result-excerpt mark').first().waitFor({ timeout: 15_000 });
    const first = await results.first().evaluate((r) => {
      const mark = r.querySelector('mark')!;
      return {
        title: r.querySelector('.pagefind-ui__result-title')!.textContent.trim(),
        excerpt: r.querySelector('.pagefind-ui__result-excerpt')!.textContent.trim(),
        markBackground: getComputedStyle(mark).backgroundColor,
        chipBackground: getComputedStyle(document.body).getPropertyValue('--chip-bg').trim(),
      };
    });
    expect(first.title).toBe('Release 5');
    expect(first.excerpt.startsWith('Release notes number 5')).toBe(true);
    expect(first.markBackground).not.toBe('rgb(255, 255, 0)');
    expect(first.markBackground).toBe('rgb(246, 227, 211)'); // paper's --chip-bg, #f6e3d3
    const clear = await page.locator('.pagefind-ui__search-clear').evaluate((b) => {
      const s = getComputedStyle(b);
      const box = b.getBoundingClientRect();
      const input = document.querySelector('.pagefind-ui__search-input')!.getBoundingClientRect();
      return { left: parseFloat(s.paddingLeft), right: parseFloat(s.paddingRight), top: box.top - input.top, bottom: input.bottom - box.bottom };
    });
    expect(clear.left).toBeGreaterThanOrEqual(10);
    expect(clear.right).toBeGreaterThanOrEqual(10);
    expect(clear.top).toBeGreaterThan(0); // inside the search box, not floating over the results
    expect(clear.bottom).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'reading-search-paper.png'), fullPage: true });
    // A word only in a title still finds its entry.
    await page.goto(`${themed.sites.paper!.url}/search/?q=samples`);
    await expect.poll(() => results.count(), { timeout: 15_000 }).toBe(1);
    // The placeholder's title is ". . ." until the fragment loads: wait for a loaded title.
    await results.first().locator('.pagefind-ui__result-title').filter({ hasNotText: '. . .' }).waitFor({ timeout: 15_000 });
    expect(await results.first().locator('.pagefind-ui__result-title').textContent()).toContain('Code samples');
  });

  it('raised no script error on any page', () => {
    expect(problems).toEqual([]);
  });
});
