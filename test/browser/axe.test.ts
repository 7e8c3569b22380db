/// <reference lib="dom" />
// axe-core on every page type of the site (home, entry, tag page, tags page, search page
// with results, 404) in every built-in theme and both colour schemes (prefers-color-scheme
// emulated): no serious or critical violation, colour contrast included. The site:
// test/helpers/site/reading-site.ts (highlighted code, heading anchors, coloured tags).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_THEMES } from '../../src/site/data/themes.js';
import { seriousViolations } from '../helpers/browser/axe.js';
import { launchChromium } from '../helpers/browser/chromium.js';
import { tempDir } from '../helpers/process/cli.js';
import { buildThemedSites, CODE_ENTRY, type ThemedSites } from '../helpers/site/reading-site.js';

/** Each page type: its path, and what shows it is ready to check. */
const PAGES: ReadonlyArray<{ type: string; path: string; ready: string }> = [
  { type: 'home', path: '/', ready: 'article.entry' },
  { type: 'entry', path: `/entries/${CODE_ENTRY}/`, ready: 'pre code.hljs' },
  { type: 'tag page', path: '/tags/new/', ready: '.entry-row' },
  { type: 'tags page', path: '/tags/', ready: '.tag-index .tag' },
  { type: 'search page with results', path: '/search/?q=alpha', ready: '.pagefind-ui__result mark' },
  { type: '404', path: '/entries/no-such-entry/', ready: 'h1' },
];

describe('axe-core on every page type, theme and colour scheme', () => {
  let cleanupDir: () => Promise<void>;
  let themed: ThemedSites;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let page: Page;

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup: cleanupDir } = await tempDir());
    themed = await buildThemedSites(dir);
    ({ context, close: closeBrowser } = await launchChromium({ colorScheme: 'light' }));
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 204, body: '' }));
    page = await context.newPage();
  });

  afterAll(async () => {
    await closeBrowser?.();
    await themed?.close();
    await cleanupDir?.();
  });

  for (const theme of BUILT_IN_THEMES) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`finds nothing serious in the ${theme} theme, ${scheme} scheme`, async () => {
        await page.emulateMedia({ colorScheme: scheme });
        const found: Record<string, string[]> = {};
        let checked = 0;
        for (const p of PAGES) {
          await page.goto(`${themed.sites[theme]!.url}${p.path}`);
          await page.locator(p.ready).first().waitFor({ timeout: 15_000 });
          // The colour of the page is the scheme's (the check runs on what a reader sees).
          expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(scheme === 'dark');
          const violations = await seriousViolations(page);
          if (violations.length > 0) found[p.type] = violations;
          checked++;
        }
        expect(found).toEqual({});
        expect(checked).toBe(PAGES.length);
      });
    }
  }
});
