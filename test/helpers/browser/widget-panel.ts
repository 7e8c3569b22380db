// The "What's new" widget (site/widget.js) on a product's page, in the browser.
import type { Page } from 'playwright-core';

/** What the widget shows: the badge's unread count (0: none shown), and the panel's entries once opened. */
export interface WidgetView {
  unread: number;
  /** The panel's entry titles, newest first, each with ` (new)` when marked unread. */
  titles: string[];
}

/**
 * Opens `url` (a page with the widget's script), reads the badge's count once the widget has
 * read its latest.json (the badge enabled), then opens the panel (which marks its entries read).
 */
export async function openWidget(page: Page, url: string): Promise<WidgetView> {
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('changelog-widget')?.shadowRoot?.querySelector('button')?.disabled === false);
  const count = page.locator('changelog-widget button .count');
  const unread = (await count.isHidden()) ? 0 : Number(await count.textContent());
  await page.locator('changelog-widget button').click();
  const panel = page.getByRole('dialog', { name: "What's new" });
  await panel.waitFor();
  const titles = await panel.locator('li a').evaluateAll((as) => as.map((a) => `${a.querySelector('.entry-title')?.textContent ?? ''}${a.querySelector('.new') ? ' (new)' : ''}`));
  return { unread, titles };
}
