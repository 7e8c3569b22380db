/**
 * The split of the search index into an archive and recent entries (docs/site.md#search): Pagefind
 * has no incremental index, so a warm build keeps the last full index (search-archive.ts) and
 * indexes only the entries it lacks, into a small second bundle the search page merges.
 */

/** At most this many recent entries: a small share of Pagefind's time for a full index. */
export const RECENT_LIMIT = 200;

/**
 * At most this share of the archive's entries: Pagefind ranks each bundle by its own BM25
 * statistics, so a large recent bundle would rank by its own; and a small site is cheap to index whole.
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
 * Decides the split: the archive holds when each of its entries is still there with the same URL
 * and search document, and the others (the recent ones) are at most {@link recentLimit}.
 * @param archived the archive's entries, URL → SHA-256 of the search document; undefined without a usable archive.
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
