/**
 * The search archive (docs/site.md#search): the last full Pagefind index and its entries, kept in
 * the build cache so a later build re-uses them (search-split.ts decides when). One file,
 * `search-archive.bin`, read and checked in one go rather than the index's thousands: a JSON line
 * with the format, build fingerprint (build-cache.ts), language, and the rest's SHA-256 and length;
 * a JSON line with the entries (URL, search document's SHA-256) and files (path, length); the
 * files' bytes. Another format, fingerprint or language, or a failed checksum (corrupt, cut
 * short), is not used: the build indexes every entry and says why. Written atomically.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../core/atomic-file.js';
import type { IndexFile } from './search-index-files.js';
import { sha256 } from '../../core/hash.js';
import { otherFormatNote } from '../cache/cache-file.js';

/** The format of the archive; another one is ignored. */
const FORMAT = 'changelog-sync-search-archive/1';

/** The archive file in the cache folder. */
export const SEARCH_ARCHIVE_FILE = 'search-archive.bin';

/** What {@link readSearchArchive} found. */
export interface ReadArchive {
  /** The archive, when it may be used: its entries (URL → SHA-256 of the search document) and the index's files (paths relative to the index folder). */
  archive?: { entries: Map<string, string>; files: IndexFile[] };
  /** Why an archive that is there is not used (for the build's `cache.note`). */
  note?: string;
}

/** What the second line holds: the entries (URL, SHA-256), and the files (a relative path that stays inside the index folder, its length). */
const CONTENTS = z.object({
  entries: z.array(z.tuple([z.string(), z.string()])),
  files: z.array(z.tuple([z.string().refine((path) => path.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && !part.includes('\\'))), z.int().nonnegative()])),
});

/**
 * Reads the archive in `dir` for a build with `fingerprint` and `language`. A missing
 * archive is no archive, without a note.
 */
export async function readSearchArchive(dir: string, fingerprint: string, language: string): Promise<ReadArchive> {
  const file = join(dir, SEARCH_ARCHIVE_FILE);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { note: explain(file, `it cannot be read (${(err as Error).message})`) };
  }
  try {
    const newline = bytes.indexOf(10);
    const header = JSON.parse(bytes.subarray(0, newline < 0 ? bytes.length : newline).toString('utf8')) as Record<string, unknown>;
    const rest = newline < 0 ? Buffer.alloc(0) : bytes.subarray(newline + 1);
    if (header.format !== FORMAT) return { note: explain(file, otherFormatNote(header.format, FORMAT)) };
    if (header.length !== rest.length || header.sha256 !== sha256(rest)) return { note: explain(file, 'it is corrupt or incomplete (its checksum does not match)') };
    // Another build's archive: the build's one line says what differed (build-cache.ts `cacheChangeNote`).
    if (header.fingerprint !== fingerprint) return {};
    if (header.language !== language) return { note: explain(file, 'it was made for pages of another language') };
    const second = rest.indexOf(10);
    const contents = CONTENTS.safeParse(JSON.parse(rest.subarray(0, second < 0 ? rest.length : second).toString('utf8')));
    if (second < 0 || !contents.success) return { note: explain(file, 'it is corrupt (no list of entries and files)') };
    const files: IndexFile[] = [];
    let at = second + 1;
    for (const [path, length] of contents.data.files) {
      files.push({ path, content: rest.subarray(at, at + length) });
      at += length;
    }
    if (at !== rest.length) return { note: explain(file, 'it is corrupt (its files do not add up)') };
    return { archive: { entries: new Map(contents.data.entries), files } };
  } catch (err) {
    return { note: explain(file, `it is corrupt or incomplete (${(err as Error).message})`) };
  }
}

function explain(file: string, why: string): string {
  return `the search archive (${file}) was not used: ${why}; every entry was indexed again`;
}

/**
 * Writes the archive of a full index into `dir`, atomically (a temporary file and a rename).
 *
 * @param entries the entries the index holds: URL → SHA-256 of the search document.
 * @throws when the folder cannot be written (the build reports it as a warning).
 */
export async function writeSearchArchive(dir: string, fingerprint: string, language: string, entries: ReadonlyMap<string, string>, files: readonly IndexFile[]): Promise<void> {
  const contents: z.infer<typeof CONTENTS> = { entries: [...entries], files: files.map((f) => [f.path, f.content.length]) };
  const rest = Buffer.concat([Buffer.from(`${JSON.stringify(contents)}\n`), ...files.map((f) => f.content)]);
  const header = JSON.stringify({ format: FORMAT, fingerprint, language, sha256: sha256(rest), length: rest.length });
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, SEARCH_ARCHIVE_FILE), Buffer.concat([Buffer.from(`${header}\n`), rest]));
}
