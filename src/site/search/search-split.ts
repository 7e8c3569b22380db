/**
 * The split of the search index into an archive and recent entries (docs/site.md#search):
 * which entries a build with a build cache indexes again. Pagefind (1.5.2) has no
 * incremental index: indexing 10,000 entries costs seconds of its CPU and of Node's
 * whatever one adds to them, so a warm build keeps the files of the last full index
 * (the archive, search-archive.ts) and indexes only the entries the archive does not hold,
 * into a second, small bundle the search page merges.
 *
 * @module
 */

/** At most this many recent entries: a small share of Pagefind's time for a full index. */
export const RECENT_LIMIT = 200;

/**
 * At most this share of the archive's entries. Pagefind ranks each bundle with its own
 * term statistics (BM25 over that bundle's pages), so a recent bundle much larger than a
 * handful of pages would rank its results by statistics of its own; and a small site is
 * cheap to index whole.
 */
const RECENT_SHARE = 0.05;

/** What a build indexes: only the recent entries (the archive holds), or everything. */
export type SearchSplit =
  | {
      kind: 'split';
      /** URLs of the entries the archive does not hold, in the order given. */
      recent: string[];
    }
  | {
      kind: 'full';
      /** Why the archive is not kept (for the build's report). */
      reason: string;
    };

/** The most recent entries a split allows beside an archive of `archived` entries. */
export function recentLimit(archived: number): number {
  return Math.min(RECENT_LIMIT, Math.floor(archived * RECENT_SHARE));
}

/**
 * Decides the split. The archive holds when every entry it holds is still there, under the
 * same URL, with the same search document (the same SHA-256); the entries it does not hold
 * are the recent ones, as long as they are at most {@link recentLimit}.
 *
 * @param archived the archive's entries, URL → SHA-256 of the search document; undefined
 *   when there is no usable archive.
 * @param current this build's entries, URL → SHA-256 of the search document.
 */
export function planSearchSplit(archived: ReadonlyMap<string, string> | undefined, current: ReadonlyMap<string, string>): SearchSplit {
  if (!archived) return { kind: 'full', reason: 'no search archive' };
  for (const [url, hash] of archived) {
    const now = current.get(url);
    if (now === undefined) return { kind: 'full', reason: 'an archived entry was removed or renamed' };
    if (now !== hash) return { kind: 'full', reason: 'an archived entry changed' };
  }
  const recent = [...current.keys()].filter((url) => !archived.has(url));
  const limit = recentLimit(archived.size);
  if (recent.length > limit) return { kind: 'full', reason: `${recent.length} entries are not in the search archive, more than ${limit}` };
  return { kind: 'split', recent };
}
