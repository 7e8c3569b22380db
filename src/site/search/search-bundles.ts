/**
 * The search index of a build with a build cache, in two bundles (docs/site.md#search): the last
 * full index kept in the cache (search-archive.ts) written into `pagefind/` as it is, and the
 * entries it lacks indexed into `pagefind/recent/`, which the search page merges (`mergeIndex`).
 * When the archive does not hold (search-split.ts), every entry is indexed into one bundle that
 * becomes the new archive. Without a cache folder every entry is indexed into one bundle.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { readSearchArchive, writeSearchArchive, type ReadArchive } from './search-archive.js';
import {
  entrySearchDocument,
  indexEntries,
  SEARCH_INDEX_DIR,
  writeSearchIndex,
  type BuiltIndex,
  type EntryIndexer,
  type IndexedEntry,
  type SearchIndexResult,
} from './search-index.js';
import { planSearchSplit, type SearchSplit } from './search-split.js';
import { sha256 } from '../../core/hash.js';

/** The folder of the recent entries' bundle, inside the index folder. */
const RECENT_BUNDLE_DIR = 'recent';

/** The build cache the index may be kept in. */
export interface SearchCache {
  /** The cache folder (absolute). */
  dir: string;
  /** The build's fingerprint (build-cache.ts `buildFingerprint`). */
  fingerprint: string;
  /** Eleventy's input: a second bundle only when its `search.njk` merges it ({@link SEARCH_PAGE_OPTION}), else recent entries would be unsearchable. */
  siteDir: string;
  /** False when the build found no archive as it started and planned on that: none is read, not even one written meanwhile. Default true. */
  archived?: boolean;
}

/** The global data the search page reads the bundles to merge from (`changelogSyncOptions.searchBundles`). */
const SEARCH_PAGE_OPTION = 'searchBundles';

/** A search index being built, in one bundle or two. */
export interface SearchIndexer extends EntryIndexer {
  /**
   * The bundles the search page merges (site-relative, `['/pagefind/recent/']` or empty), known after `finish`, or at once without an archive.
   * @throws {Error} (rejects) when asked before `finish` with an archive: a split of the entries so far would be wrong.
   */
  mergeBundles(): Promise<string[]>;
}

const MAIN_BUNDLE = `/${SEARCH_INDEX_DIR}/`;
const RECENT_BUNDLE = `/${SEARCH_INDEX_DIR}/${RECENT_BUNDLE_DIR}/`;

/**
 * Starts the search index of a build.
 * @param outputDir the site being built (absolute); the index goes to `pagefind/` in it.
 * @param language the `lang` of the entry pages.
 * @param signal stops Pagefind (the build failed); `finish()` then rejects.
 * @param cache the build cache, if any: the archive is read from it and written to it.
 */
export function startSearchIndex(outputDir: string, language: string, signal?: AbortSignal, cache?: SearchCache): SearchIndexer {
  if (!cache) {
    const indexer = indexEntries(language, signal);
    return { add: (entries) => indexer.add(entries), finish: async () => writeSearchIndex(outputDir, await indexer.finish()), mergeBundles: () => Promise.resolve([]) };
  }
  const { dir, fingerprint, siteDir } = cache;
  const all: IndexedEntry[] = [];
  // Every entry, indexed as it comes, once it is known that there is no archive to keep.
  let full: EntryIndexer<BuiltIndex> | undefined;
  const startFull = () => {
    if (!full) {
      full = indexEntries(language, signal);
      full.add(all);
    }
    return full;
  };
  const reading: Promise<ReadArchive> = cache.archived === false ? Promise.resolve({}) : readSearchArchive(dir, fingerprint, language);
  const loaded = reading.then((read) => {
    if (!read.archive && !signal?.aborted) startFull();
    return read;
  });
  const pageMerges = readFile(join(siteDir, 'search.njk'), 'utf8').then(
    (page) => page.includes(SEARCH_PAGE_OPTION),
    () => false,
  );
  let decided: Promise<{ read: ReadArchive; hashes: Map<string, string>; split: SearchSplit }> | undefined;
  const decide = () =>
    (decided ??= Promise.all([loaded, pageMerges]).then(([read, merges]) => {
      // The archive keys its entries by the SHA-256 of their search documents.
      const hashes = new Map(all.map((e) => [e.url, sha256(entrySearchDocument(e, language))]));
      const split = planSearchSplit(read.archive?.entries, hashes);
      if (split.kind === 'split' && split.recent.length > 0 && !merges) {
        return { read, hashes, split: { kind: 'full', reason: `the search page (search.njk) does not merge a second bundle (${SEARCH_PAGE_OPTION})` } as const };
      }
      return { read, hashes, split };
    }));

  async function build(): Promise<SearchIndexResult> {
    const { read, hashes, split } = await decide();
    if (signal?.aborted) throw new ChangelogSyncError('E_BUILD', 'the search index was not built: the build stopped');
    const { archive, note } = read;
    if (split.kind === 'split' && archive) {
      let recent: BuiltIndex = { pages: 0, files: [] };
      if (split.recent.length > 0) {
        const urls = new Set(split.recent);
        const indexer = indexEntries(language, signal);
        indexer.add(all.filter((e) => urls.has(e.url)));
        // The recent entries' bundle is built, and the archive's files written, while Eleventy renders.
        recent = await indexer.finish();
      }
      const files = [...archive.files, ...recent.files.map((f) => ({ path: `${RECENT_BUNDLE_DIR}/${f.path}`, content: f.content }))];
      const written = writeSearchIndex(outputDir, { pages: archive.entries.size + recent.pages, files });
      const bundles = recent.pages > 0 ? [MAIN_BUNDLE, RECENT_BUNDLE] : [MAIN_BUNDLE];
      return { ...written, segments: { indexed: recent.pages, archived: archive.entries.size, bundles, note } };
    }
    const built = await startFull().finish();
    const written = writeSearchIndex(outputDir, built);
    let warning: string | undefined;
    try {
      await writeSearchArchive(dir, fingerprint, language, hashes, built.files);
    } catch (err) {
      warning = `the search archive could not be written to ${dir}: ${(err as Error).message} (the next build indexes every entry)`;
    }
    return { ...written, segments: { indexed: built.pages, archived: 0, bundles: [MAIN_BUNDLE], reason: split.kind === 'full' ? split.reason : undefined, note, warning } };
  }

  let result: ReturnType<typeof build> | undefined;
  return {
    add(entries) {
      if (signal?.aborted) return;
      all.push(...entries);
      full?.add(entries);
    },
    finish() {
      result ??= build();
      return result;
    },
    async mergeBundles() {
      // Without an archive there is one bundle, known before every entry is added.
      const read = await loaded.catch(() => undefined);
      if (!read?.archive) return [];
      if (!result) throw new Error('the search bundles to merge beside an archive are known once every entry is added (finish)');
      const decision = await decide().catch(() => undefined);
      return decision?.split.kind === 'split' && decision.read.archive && decision.split.recent.length > 0 ? [RECENT_BUNDLE] : [];
    },
  };
}
