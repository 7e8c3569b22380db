// The search page's results in the browser, once Pagefind UI has shown all of them.
import type { Page } from 'playwright-core';

/**
 * Opens a search page URL (`.../search/?q=...`, `&product=<key>`) and returns its result links'
 * `href`s, sorted: read when Pagefind UI's message has given the count ("2 results for ...") and
 * that many result links are on the page, so a result that loads late is not missed.
 */
export async function searchResultLinks(page: Page, url: string): Promise<string[]> {
  await page.goto(url);
  const message = page.locator('.pagefind-ui__message', { hasText: /^\d+ results? for / });
  await message.waitFor({ timeout: 15_000 });
  const count = Number(/^\d+/.exec(await message.innerText())![0]);
  await page.waitForFunction((n) => document.querySelectorAll('.pagefind-ui__result-link').length === n, count, { timeout: 15_000 });
  return (await page.locator('.pagefind-ui__result-link').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''))).sort();
}
