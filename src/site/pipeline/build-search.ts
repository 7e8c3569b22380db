/**
 * A build's search stage (build.ts): Pagefind's index from the site data beside Eleventy, or from
 * the written pages when the team's templates change what it would read of them (search-index.ts).
 */
import { PACKAGED_SITE_DIR } from '../../core/config.js';
import type { SiteInput } from './site-stage.js';
import { startSearchIndex } from '../search/search-bundles.js';
import { buildSearchIndex, searchLanguageFromData, type IndexedEntry, type SearchIndexResult } from '../search/search-index.js';

/** A build's search index, started by {@link startSearch}. */
export interface BuildSearch {
  /** Sends rendered entries to Pagefind (the site data's `onRendered`); undefined for an index of the pages. */
  add?: (entries: readonly IndexedEntry[]) => void;
  /** Every entry is added: Pagefind writes the index into the output (once; nothing for an index of the pages). */
  finish(): void;
  /**
   * The bundles the search page merges (search-bundles.ts `mergeBundles`: `['/pagefind/recent/']`
   * or none); undefined for an index of the pages.
   * @throws {Error} (rejects) when asked before `finish` with a search archive (`mergeBundles`).
   */
  bundles(): Promise<string[] | undefined>;
  /**
   * The index, written: as finished, or made now from the written pages.
   * @throws {ChangelogSyncError} `E_BUILD` when Pagefind cannot start or reports an error.
   */
  result(): Promise<SearchIndexResult>;
  /** The build failed: Pagefind is stopped and waited for, so that no process is left. Never rejects. */
  abandon(): Promise<void>;
}

/** Where {@link startSearch} reads and writes. */
export interface SearchStageOptions {
  /** The site being built (absolute): the index goes to `pagefind/` in it. */
  outputDir: string;
  /** The configured site directory (the team's overrides decide how the index is made). */
  siteDir: string;
  /** Eleventy's input, staged. */
  input: SiteInput;
  /** The build cache, with the build's fingerprint: the index of the last full build is kept and only newer entries indexed (search-bundles.ts). */
  cache?: { dir: string; fingerprint: string; archived: boolean };
  /** `searchMs` is set in it as the index is written, ms from its start. */
  timings: { searchMs: number };
}

/**
 * Starts the build's search index: Pagefind starts now when it can index the entries from
 * the site data (`searchLanguageFromData`), else the index waits for the written pages.
 * Reads the team's `site/` and the staged input; writes nothing until `finish`/`result`.
 */
export async function startSearch(options: SearchStageOptions): Promise<BuildSearch> {
  const { outputDir, input, timings } = options;
  const language = await searchLanguageFromData(options.siteDir, PACKAGED_SITE_DIR, input.dir);
  if (language === null) {
    return {
      finish() {},
      bundles: () => Promise.resolve(undefined),
      async result() {
        const started = Date.now();
        const index = await buildSearchIndex(outputDir);
        timings.searchMs = Date.now() - started;
        return index;
      },
      abandon: () => Promise.resolve(),
    };
  }
  const started = Date.now();
  const stop = new AbortController();
  const cache = options.cache ? { ...options.cache, siteDir: input.dir } : undefined;
  const indexer = startSearchIndex(outputDir, language, stop.signal, cache);
  let finishing: Promise<SearchIndexResult> | undefined;
  const finish = () => {
    finishing ??= indexer.finish().then((index) => {
      timings.searchMs = Date.now() - started;
      return index;
    });
    finishing.catch(() => undefined); // awaited by result(); not unhandled while Eleventy runs
    return finishing;
  };
  return {
    add: (entries) => indexer.add(entries),
    finish: () => void finish(),
    bundles: () => indexer.mergeBundles(),
    result: () => finish(),
    async abandon() {
      stop.abort();
      await (finishing ?? indexer.finish()).catch(() => undefined);
    },
  };
}
