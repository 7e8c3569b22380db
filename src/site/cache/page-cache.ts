/**
 * The page cache: the entry, index and tag pages of the previous build, by their key
 * (page-keys.ts), so that a build renders only the pages whose key changed and writes the
 * others from here (docs/site.md#build-cache).
 *
 * One pack file, `pages.pack` in the build cache folder (beside build-cache.ts's
 * `bodies.json`): creating a file costs as much as writing tens of kilobytes on a slow
 * disk, and a 10,000-entry site has 11,000 pages. The pack is a first line of JSON (the
 * format, the build's fingerprint, the pages' count and the index's length and CRC-32), a
 * second line with the index (each page's key, length and CRC-32, in the order of their
 * bytes), then the pages' bytes one after the other. A pack of another format or
 * fingerprint, or whose lengths or checksums do not match (a corrupt or partial file), is
 * not used: every page renders, and {@link PageCache.note} says why. CRC-32 finds
 * accidental damage (a truncated or altered file); the pack is no more trusted than the
 * folder it is in.
 *
 * The pack is written anew by each build (a temporary file, then renamed over the old one)
 * with this build's pages only, so it does not grow with removed or changed pages.
 *
 * @module
 */
import { crc32 } from 'node:zlib';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { makePageFolders } from '../build/build-output.js';

/** The format of `pages.pack`; another one is ignored. */
const FORMAT = 'changelog-sync-page-cache/1';

/** The pack in the cache folder. */
export const PAGE_PACK_FILE = 'pages.pack';

/** Pages written to the output at once. */
const WRITE_CONCURRENCY = 16;

/** The most buffers one `writev` call takes (IOV_MAX on Linux is 1024). */
const WRITEV_BATCH = 512;

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
   * Writes a new pack with this build's pages only: those of the old pack by their key, the
   * others read from `outputDir`, where this build's Eleventy run wrote them.
   * @throws when a page cannot be read or the pack cannot be written (the build warns).
   */
  save(outputDir: string, pages: readonly KeyedPage[]): Promise<void>;
}

interface Header {
  format?: unknown;
  fingerprint?: unknown;
  pages?: unknown;
  indexLength?: unknown;
  indexCrc?: unknown;
  dataLength?: unknown;
}

/** An index row: key, length, CRC-32. */
type Row = [string, number, number];

/** The pages of a pack by key (views into its bytes); throws with the reason when it cannot be used. */
function readPack(bytes: Buffer, fingerprint: string): Map<string, Buffer> {
  const firstLine = bytes.indexOf(0x0a);
  if (firstLine < 0) throw new Error('it is corrupt or incomplete (no header)');
  const header = JSON.parse(bytes.subarray(0, firstLine).toString('utf8')) as Header;
  if (header.format !== FORMAT) throw new Error('it was written by another version of changelog-sync');
  if (header.fingerprint !== fingerprint) throw new Error('it was made by another version of changelog-sync, other templates or other site options');
  const indexStart = firstLine + 1;
  const dataStart = indexStart + Number(header.indexLength);
  if (!Number.isSafeInteger(header.indexLength) || bytes.length !== dataStart + Number(header.dataLength)) throw new Error('it is corrupt or incomplete (its length does not match)');
  const indexBytes = bytes.subarray(indexStart, dataStart);
  if (crc32(indexBytes) !== header.indexCrc) throw new Error('it is corrupt (the checksum of its index does not match)');
  const rows = JSON.parse(indexBytes.toString('utf8')) as Row[];
  if (!Array.isArray(rows) || rows.length !== header.pages) throw new Error('it is corrupt (its index does not match its header)');
  const pages = new Map<string, Buffer>();
  let offset = dataStart;
  for (const row of rows) {
    const [key, length, crc] = Array.isArray(row) ? row : [];
    if (typeof key !== 'string' || !Number.isSafeInteger(length) || offset + length! > bytes.length) throw new Error('it is corrupt (its index does not match its pages)');
    const page = bytes.subarray(offset, offset + length!);
    if (crc32(page) !== crc) throw new Error('it is corrupt (the checksum of a page does not match)');
    pages.set(key, page);
    offset += length!;
  }
  if (offset !== bytes.length) throw new Error('it is corrupt (its index does not match its pages)');
  return pages;
}

/**
 * Opens the page cache in `dir` for a build with `fingerprint`: a missing pack is empty; one
 * of another format or fingerprint, or corrupt, is empty too, with a {@link PageCache.note}
 * saying why. Every page's checksum is checked here, before any is used.
 */
export async function openPageCache(dir: string, fingerprint: string): Promise<PageCache> {
  const file = join(dir, PAGE_PACK_FILE);
  let pages = new Map<string, Buffer>();
  let note: string | undefined;
  if (existsSync(file)) {
    try {
      pages = readPack(await readFile(file), fingerprint);
    } catch (err) {
      note = err instanceof SyntaxError ? `it is corrupt (${err.message})` : (err as Error).message;
    }
  }
  return {
    note: note && `the page cache (${file}) was not used: ${note}; every page was rendered again`,
    has: (key) => pages.has(key),
    async writeInto(outputDir, wanted) {
      const written: string[] = [];
      // A folder that cannot be made fails the write into it, which names the page.
      await makePageFolders(outputDir, wanted.map((page) => page.path));
      const limit = pLimit(WRITE_CONCURRENCY);
      const writeOne = async (page: KeyedPage) => {
        const bytes = pages.get(page.key);
        if (!bytes) throw new Error(`the page cache has no page ${page.key} for ${page.path}`);
        const path = join(outputDir, page.path);
        await writeFile(path, bytes);
        written.push(path);
      };
      await Promise.all(wanted.map((page) => limit(() => writeOne(page))));
      return written;
    },
    async save(outputDir, current) {
      const unique = [...new Map(current.map((p) => [p.key, p])).values()];
      const limit = pLimit(WRITE_CONCURRENCY);
      const buffers = await Promise.all(unique.map((page) => limit(async () => pages.get(page.key) ?? (await readFile(join(outputDir, page.path))))));
      const rows: Row[] = unique.map((page, i) => [page.key, buffers[i]!.length, crc32(buffers[i]!)]);
      const index = Buffer.from(JSON.stringify(rows));
      const dataLength = buffers.reduce((n, b) => n + b.length, 0);
      const header = JSON.stringify({ format: FORMAT, fingerprint, pages: rows.length, indexLength: index.length, indexCrc: crc32(index), dataLength });
      await mkdir(dir, { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      const handle = await open(temporary, 'w');
      try {
        const writeAll = async (batch: Buffer[]) => {
          const expected = batch.reduce((n, b) => n + b.length, 0);
          const { bytesWritten } = await handle.writev(batch);
          if (bytesWritten !== expected) throw new Error(`${temporary}: wrote ${bytesWritten} of ${expected} bytes`);
        };
        await writeAll([Buffer.from(`${header}\n`), index]);
        for (let i = 0; i < buffers.length; i += WRITEV_BATCH) await writeAll(buffers.slice(i, i + WRITEV_BATCH));
        await handle.close();
        await rename(temporary, file);
      } catch (err) {
        await handle.close().catch(() => undefined);
        await rm(temporary, { force: true });
        throw err;
      }
    },
  };
}
