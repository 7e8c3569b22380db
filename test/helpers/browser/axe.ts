/// <reference lib="dom" />
// axe-core in a page of the browser suites: its serious and critical violations.
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * Runs axe-core on the page as it is and lists its serious and critical violations, each
 * with where (selector) and why (axe's failure summary).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  const result = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    return run(document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''}`.trim()).join('; ')}`);
}
