/**
 * The search index: Pagefind (its binary in a per-platform optional dependency) indexes the entry
 * pages' `data-pagefind-body`, so each result is one entry, into the site's `pagefind/`.
 * Two ways to the same index: {@link indexEntries} gives Pagefind each entry's article made
 * from the site data as it renders; {@link buildSearchIndex} reads the written entry pages (a
 * team's templates change the entry page, and the preview).
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { escapeHtml } from '../../core/markup-text.js';
import { writeIndexFiles, type IndexFile } from './search-index-files.js';
import type { SiteEntry } from '../data/site-model.js';

/** The folder of the index inside the built site. */
export const SEARCH_INDEX_DIR = 'pagefind';

/** What indexing did. */
export interface SearchIndexResult {
  /** Pages indexed. */
  pages: number;
  /** The index's files, relative to its folder ({@link SEARCH_INDEX_DIR}). */
  files: string[];
  /** How the index was made, in a build with a build cache (search-bundles.ts). */
  segments?: SearchSegments;
}

/** How the index of a build with a cache was made (the build reports it). */
export interface SearchSegments {
  /** Entries Pagefind indexed in this build (the recent ones, or all). */
  indexed: number;
  /** Entries taken from the archive, not indexed again (0 when everything was). */
  archived: number;
  /** The bundles the search page loads, site-relative (`/pagefind/`, then `/pagefind/recent/` if any). */
  bundles: string[];
  /** Why every entry was indexed (no archive, an archived entry changed, ...), when it was. */
  reason?: string;
  /** Why an archive that was there was not used (corrupt, another fingerprint): for `cache.note`. */
  note?: string;
  /** The archive could not be written (the next build indexes every entry). */
  warning?: string;
}


/** An index Pagefind built, in memory (see {@link writeIndexFiles}). */
export interface BuiltIndex {
  /** Pages indexed. */
  pages: number;
  files: IndexFile[];
}

type PagefindIndex = NonNullable<Awaited<ReturnType<(typeof import('pagefind'))['createIndex']>>['index']>;

/**
 * Starts Pagefind, lets `add` fill an index, takes its files and stops it (at once when `signal` aborts).
 * @throws {ChangelogSyncError} `E_BUILD` when Pagefind cannot start or reports an error.
 */
async function withPagefind(add: (index: PagefindIndex) => Promise<{ pages: number; errors: string[] }>, signal?: AbortSignal): Promise<BuiltIndex> {
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
  const stop = () => void pagefind.close();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    // Pagefind 1.5.2 writes one fragment file per page; 1.6.0's `maxFragments` would bundle
    // them, but the registry this project installs from lacks 1.6.0's non-Linux binaries.
    const { index, errors } = await pagefind.createIndex({});
    if (!index) throw fail('start', errors);
    const added = await add(index);
    if (added.errors.length > 0) throw fail('indexing', added.errors);
    const built = await index.getFiles();
    if (built.errors.length > 0) throw fail('writing the index', built.errors);
    return { pages: added.pages, files: built.files };
  } catch (cause) {
    if (cause instanceof ChangelogSyncError) throw cause;
    throw new ChangelogSyncError('E_BUILD', `Pagefind failed: ${(cause as Error).message}`, { cause });
  } finally {
    signal?.removeEventListener('abort', stop);
    await pagefind.close(); // the files are here: Pagefind's memory goes now
  }
}

/**
 * Writes a built index into `outputDir/pagefind/` (see `search-index-files.ts`).
 * @throws the file system's error (`ENOSPC`, `EACCES`, ...) of the first file that could not be written.
 */
export function writeSearchIndex(outputDir: string, built: BuiltIndex): SearchIndexResult {
  writeIndexFiles(join(outputDir, SEARCH_INDEX_DIR), built.files);
  return { pages: built.pages, files: built.files.map((f) => f.path) };
}

/**
 * Indexes the entry pages of a built site (`entries/**\/*.html`).
 * @param outputDir the built site (absolute).
 * @throws {ChangelogSyncError} `E_BUILD` when Pagefind cannot start (no binary for this platform) or reports an error.
 */
export async function buildSearchIndex(outputDir: string): Promise<SearchIndexResult> {
  const built = await withPagefind(async (index) => {
    const added = await index.addDirectory({ path: outputDir, glob: 'entries/**/*.html' });
    return { pages: added.page_count, errors: added.errors };
  });
  return writeSearchIndex(outputDir, built);
}

/**
 * What Pagefind reads of an entry's page: the packaged `_includes/entry-page.njk`'s
 * `data-pagefind-body` article (date metadata, title, body; not the ignored tag list) in the site's
 * language, so the index equals the written page's (test/site/search/search-index.test.ts); with
 * several products, the entry's product as the `product` filter.
 */
export function entrySearchDocument(entry: Omit<IndexedEntry, 'url'>, language = 'en'): string {
  return `<!doctype html>
<html lang="${escapeHtml(language)}">
<body>
<article class="entry-single" data-pagefind-body>
  <header class="entry-header">
    <p class="entry-date" data-pagefind-ignore><time datetime="${escapeHtml(entry.date)}" data-pagefind-meta="date">${escapeHtml(entry.displayDate)}</time></p>
    <h1 data-pagefind-ignore data-pagefind-meta="title">${escapeHtml(entry.title)}</h1>${entry.section ? `
    <p data-pagefind-ignore data-pagefind-filter="product:${escapeHtml(entry.section)}"></p>` : ''}
  </header>
  <div class="prose">
${entry.html}
  </div>
</article>
</body>
</html>
`;
}

/** The part of an entry its search document is made of (see {@link entrySearchDocument}). */
export type IndexedEntry = Pick<SiteEntry, 'url' | 'date' | 'displayDate' | 'title' | 'html' | 'section'>;

/** An index being built from entries as they are rendered (see {@link indexEntries}). */
export interface EntryIndexer<T = SearchIndexResult> {
  /** Sends entries to Pagefind (it indexes them in its own process). */
  add(entries: readonly IndexedEntry[]): void;
  /**
   * No more entries: Pagefind builds the index (its memory peak, beside Eleventy's run); resolves when built (and written).
   * @throws {ChangelogSyncError} `E_BUILD` when Pagefind cannot start or reports an error, or the build stopped.
   */
  finish(): Promise<T>;
}

/**
 * Starts an index of entries from the site data, its files kept in memory ({@link writeSearchIndex}
 * writes them); Pagefind's own process indexes the first entries while the others render.
 * @param language the `lang` of the entry pages (see {@link searchLanguageFromData}).
 * @param signal stops Pagefind (the build failed); `finish()` then rejects.
 */
export function indexEntries(language = 'en', signal?: AbortSignal): EntryIndexer<BuiltIndex> {
  let indexReady: (index: PagefindIndex) => void = () => undefined;
  const started = new Promise<PagefindIndex>((resolve) => (indexReady = resolve));
  let allAdded: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (allAdded = resolve));
  // A stop ends the wait for more entries.
  signal?.addEventListener('abort', () => allAdded(), { once: true });
  const pending: Array<Promise<{ errors: string[] }>> = [];
  const throwIfStopped = () => {
    if (signal?.aborted) throw new ChangelogSyncError('E_BUILD', 'the search index was not built: the build stopped');
  };
  const result = withPagefind(async (index) => {
    indexReady(index);
    await finished;
    throwIfStopped();
    const added = await Promise.all(pending);
    throwIfStopped();
    return { pages: added.length, errors: added.flatMap((a) => a.errors) };
  }, signal);
  result.catch(() => undefined); // rejects through finish()
  return {
    add(entries) {
      // After a stop, a request would start Pagefind again.
      if (signal?.aborted) return;
      for (const e of entries) {
        const request = started.then((index) => index.addHTMLFile({ url: e.url, content: entrySearchDocument(e, language) }));
        request.catch(() => undefined); // awaited in finish(); not unhandled if Pagefind stops first
        pending.push(request);
      }
    },
    finish() {
      allAdded();
      return result;
    },
  };
}

/** Files of a team's site that decide what the search index holds: the entry page and its route. */
const ENTRY_PAGE_FILES = ['_includes/entry-page.njk', 'entries.11ty.mjs'];

/**
 * The entry pages' language when Pagefind can index them from the site data; null (index the written
 * pages) when a team's `site/` overrides the entry page or its route, mentions `data-pagefind-`, or
 * `_includes/base.njk` has no literal `<html lang>`.
 * @param teamSiteDir the configured site directory (the packaged one has no overrides).
 * @param packagedSiteDir the packaged templates.
 * @param stagedSiteDir Eleventy's input: the packaged templates with the team's laid over them.
 */
export async function searchLanguageFromData(teamSiteDir: string, packagedSiteDir: string, stagedSiteDir: string): Promise<string | null> {
  if (teamSiteDir !== packagedSiteDir && existsSync(teamSiteDir)) {
    if (ENTRY_PAGE_FILES.some((f) => existsSync(join(teamSiteDir, f)))) return null;
    for (const d of await readdir(teamSiteDir, { withFileTypes: true, recursive: true })) {
      if (!d.isFile() || !/\.(?:njk|html|md|liquid|js|mjs|cjs)$/.test(d.name)) continue;
      if ((await readFile(join(d.parentPath, d.name), 'utf8')).includes('data-pagefind-')) return null;
    }
  }
  const shell = await readFile(join(stagedSiteDir, '_includes/base.njk'), 'utf8').catch(() => '');
  return /<html\s[^>]*\blang="([A-Za-z]{2,3}(?:-[A-Za-z0-9]+)*)"/.exec(shell)?.[1] ?? null;
}
