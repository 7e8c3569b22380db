/**
 * The preview's pages a rebuild no longer writes (`dev`). Eleventy leaves them in the output, so a
 * now-broken entry's page would reload with its last good content and no banner: each is replaced
 * by the not-found page with the problem banner, or removed when no problem explains it.
 */
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { escapeHtml } from '../../core/markup-text.js';
import { problemBanner, type PageProblem } from '../render/problem-banner.js';
import { SEARCH_INDEX_DIR } from '../search/search-index.js';

/** The not-found page the packaged templates write (site/404.njk). */
const NOT_FOUND_PAGE = '404.html';

/**
 * Replaces (or removes) the HTML pages an earlier build of this preview wrote and the last did not; files no build wrote are never touched.
 * @param written absolute paths of the files the last build wrote.
 * @param before absolute paths of the HTML pages the builds before it wrote (and the pages
 *   replaced since, which stay stale until a build writes them again).
 * @param problems the problems shown on every page (problem-banner.ts).
 * @returns the stale pages, absolute.
 */
export async function replaceStalePages(outputDir: string, written: ReadonlySet<string>, before: ReadonlySet<string>, problems: readonly PageProblem[]): Promise<string[]> {
  const root = resolve(outputDir);
  const stale = [...before].filter((f) => f.endsWith('.html') && !written.has(f) && !f.startsWith(join(root, SEARCH_INDEX_DIR)));
  if (stale.length === 0) return [];
  // The problems that take an entry out of the site explain a page gone.
  const explained = problems.some((p) => p.kind === 'unreadable' || p.kind === 'schema');
  // The site's not-found page (or a bare one), its own banner taken out: each stale page gets
  // the banner right after `<body>`, led by a line saying why this page is gone.
  const notFound = explained ? await readFile(join(root, NOT_FOUND_PAGE), 'utf8').catch(() => undefined) : undefined;
  const page = (notFound ?? '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not in the preview</title></head><body></body></html>').replace(/<aside id="changelog-sync-problems"[\s\S]*?<\/aside>/, '');
  await Promise.all(
    stale.map((file) => {
      if (!explained) return rm(file, { force: true });
      const url = `/${file.slice(root.length + 1).replace(/\\/g, '/').replace(/(^|\/)index\.html$/, '$1')}`;
      const lead = `<p style="margin:0 0 .5rem"><strong>${escapeHtml(url)} is not in the preview now.</strong> An entry file with a problem below is left out of the site: fix it and save, and this page reloads.</p>`;
      const banner = problemBanner(problems).replace(/^(<aside[^>]*>)/, `$1${lead}`);
      return writeFileAtomic(file, page.replace(/<body([^>]*)>/i, (m) => `${m}${banner}`));
    }),
  );
  return explained ? stale : [];
}
