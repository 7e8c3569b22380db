/**
 * The page cache: the previous build's entry, index and tag pages by their key (page-keys.ts), so a
 * build renders only the pages whose key changed (docs/site.md#build-cache). One pack file,
 * `pages.pack` (page-pack.ts), as creating a file costs as much as writing tens of kilobytes on a
 * slow disk and 10,000 entries make 11,000 pages. A pack of another format or fingerprint, or with
 * bad lengths or checksums, is not used: every page renders and {@link PageCache.note} says why.
 * CRC-32 finds accidental damage; the pack is no more trusted than its folder. Each build writes
 * it anew (temporary file, rename) with its own pages only, and leaves it alone when nothing is new.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { unchangedSince } from './cache-file.js';
import { copyPages, readPackIndex, UnusablePackError, writePack, type PackedPage, type PackSource } from './page-pack.js';

/** The pack in the cache folder. */
export const PAGE_PACK_FILE = 'pages.pack';

/** A page of the routes: where it is written (relative to the output folder) and its key (page-keys.ts). */
export interface KeyedPage {
  /** E.g. `entries/new-export-api/index.html`, `index.html`, `tags/fix/page/2/index.html`. */
  path: string;
  key: string;
}

/** The pages of the previous build, opened for one build. */
export interface PageCache {
  /** Whether the pack holds a page with this key. */
  has(key: string): boolean;
  /** Why the previous pack was not used (corrupt, another version, templates or site options), else undefined. */
  readonly note: string | undefined;
  /**
   * Writes the pack's pages of `pages` (each has a key {@link has} knows) into `outputDir`.
   * @returns the absolute paths written.
   * @throws when a file cannot be written.
   */
  writeInto(outputDir: string, pages: readonly KeyedPage[]): Promise<string[]>;
  /**
   * Writes a new pack of this build's pages: the old pack's by key, the others read from `outputDir`.
   * @throws when a page cannot be read or the pack cannot be written (the build warns).
   */
  save(outputDir: string, pages: readonly KeyedPage[]): Promise<void>;
}

/** Opens the page cache in `dir` for `fingerprint`, checking every page's checksum before any is used; a missing, foreign or corrupt pack is empty (with a {@link PageCache.note}). */
export async function openPageCache(dir: string, fingerprint: string): Promise<PageCache> {
  const file = join(dir, PAGE_PACK_FILE);
  let pages = new Map<string, PackedPage>();
  let note: string | undefined;
  /** The pack's size and modification time when its index was read and found sound. */
  let read: { size: number; mtimeMs: number } | undefined;
  const before = statSync(file, { throwIfNoEntry: false }); // before the read: a pack replaced meanwhile is written again
  if (before) {
    try {
      pages = await readPackIndex(file, fingerprint);
      read = before;
    } catch (err) {
      if (!(err instanceof UnusablePackError)) throw err;
      // Another build's pack: the build's one line says what differed (build-cache.ts `cacheChangeNote`).
      if (!err.foreign) note = err.message;
    }
  }
  const packed = (page: KeyedPage): PackedPage => {
    const where = pages.get(page.key);
    if (!where) throw new Error(`the page cache has no page ${page.key} for ${page.path}`);
    return where;
  };
  return {
    note: note && `the page cache (${file}) was not used: ${note}; every page was rendered again`,
    has: (key) => pages.has(key),
    // eslint-disable-next-line @typescript-eslint/require-await -- a promise: a failed copy rejects, as the callers expect
    async writeInto(outputDir, wanted) {
      if (wanted.length === 0) return [];
      // In the pack's order: the copy reads it from start to end.
      const copies = wanted.map((page) => ({ path: page.path, ...packed(page) })).sort((a, b) => a.offset - b.offset);
      copyPages(file, outputDir, copies);
      return wanted.map((page) => join(outputDir, page.path));
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- a promise: a failed write rejects (a warning), as the callers expect
    async save(outputDir, current) {
      const unique = [...new Map(current.map((page) => [page.key, page])).values()];
      const sources: PackSource[] = unique.map((page) => (pages.has(page.key) ? { key: page.key, from: 'pack', page: pages.get(page.key)! } : { key: page.key, from: 'site', path: page.path }));
      if (read && samePack(sources, pages.size, read.size) && unchangedSince(file, read)) return;
      writePack(file, fingerprint, outputDir, sources);
    },
  };
}

/** Whether a pack of `sources` would be byte for byte the pack they come from: all `count` pages, in order, contiguous, ending at `size`. */
function samePack(sources: readonly PackSource[], count: number, size: number): boolean {
  if (sources.length !== count) return false;
  let end: number | undefined;
  for (const source of sources) {
    if (source.from !== 'pack' || (end !== undefined && source.page.offset !== end)) return false;
    end = source.page.offset + source.page.length;
  }
  return end === size;
}
