/**
 * The search index: Pagefind (the `pagefind` npm package, whose binary ships in a
 * per-platform optional dependency) indexes the entry pages Eleventy wrote and writes
 * `pagefind/` into the site; `site/search.njk` loads its UI. Only the entry pages are
 * indexed (their `data-pagefind-body`), so each result is one entry.
 *
 * @module
 */
import { join } from 'node:path';
import { ChangelogSyncError } from '../api/errors.js';

/** The folder of the index inside the built site. */
export const SEARCH_INDEX_DIR = 'pagefind';

/** What indexing did. */
export interface SearchIndexResult {
  /** Pages indexed. */
  pages: number;
}

/**
 * Indexes the entry pages of a built site.
 *
 * @param outputDir the built site (absolute).
 * @throws {ChangelogSyncError} `E_BUILD` when Pagefind cannot start (no binary for this
 *   platform) or reports an error.
 */
export async function buildSearchIndex(outputDir: string): Promise<SearchIndexResult> {
  let pagefind: typeof import('pagefind');
  try {
    pagefind = await import('pagefind');
  } catch (cause) {
    throw new ChangelogSyncError('E_BUILD', `the search index cannot be built: ${(cause as Error).message}`, { cause, hint: 'reinstall with `npm ci` (Pagefind ships its binary in an optional dependency)' });
  }
  const fail = (what: string, errors: string[]) =>
    new ChangelogSyncError('E_BUILD', `Pagefind ${what} failed: ${errors.join('; ')}`, {
      hint: `check that ${process.platform}/${process.arch} is one of Pagefind's platforms and that npm installed optional dependencies`,
    });
  try {
    // Pagefind is pinned to 1.5.0 (1.6.0's non-Linux binaries are not in the registry this
    // project installs from): one fragment file per page; 1.6.0's `maxFragments` would bundle them.
    const { index, errors } = await pagefind.createIndex({});
    if (!index) throw fail('start', errors);
    const added = await index.addDirectory({ path: outputDir, glob: 'entries/**/*.html' });
    if (added.errors.length > 0) throw fail('indexing', added.errors);
    const written = await index.writeFiles({ outputPath: join(outputDir, SEARCH_INDEX_DIR) });
    if (written.errors.length > 0) throw fail('writing the index', written.errors);
    return { pages: added.page_count };
  } catch (cause) {
    if (cause instanceof ChangelogSyncError) throw cause;
    throw new ChangelogSyncError('E_BUILD', `Pagefind failed: ${(cause as Error).message}`, { cause });
  } finally {
    await pagefind.close();
  }
}
