/**
 * The file format of the build cache's JSON files (build-cache.ts's `bodies.json`,
 * entry-memo.ts's `entries.json`, render/image-store.ts's manifest): a first line with the file's format, the build's
 * fingerprint and the SHA-256 and length of the rest; then the rest, one JSON value. A file
 * of another format or fingerprint, or whose rest does not match its checksum (a corrupt or
 * partial file), is not used, and the reason is said. Written atomically (a temporary file,
 * then renamed).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { sha256 } from '../../core/hash.js';

/** What {@link readCacheFile} found: the value, or why there is none to use. */
export interface CacheFileContent {
  /** The rest of the file, parsed; undefined when the file is missing or not used. */
  value?: unknown;
  /** Why the file was not used ("it is corrupt ..."), else undefined. */
  note?: string;
}

/**
 * Reads a cache file written by {@link writeCacheFile} with the same `format`: a missing
 * file is empty, with no note; one of another format or fingerprint, or corrupt, is empty
 * with a note saying why.
 *
 * @param foreign the note for a file of another fingerprint, when it is not the build's
 *   (the image cache's fingerprint is its encoder's).
 */
export async function readCacheFile(
  file: string,
  format: string,
  fingerprint: string,
  foreign = 'it was made by another version of changelog-sync, other templates or other site options',
): Promise<CacheFileContent> {
  if (!existsSync(file)) return {};
  try {
    const text = await readFile(file, 'utf8');
    const newline = text.indexOf('\n');
    const header = JSON.parse(newline < 0 ? text : text.slice(0, newline)) as { format?: unknown; fingerprint?: unknown; sha256?: unknown; length?: unknown };
    const rest = newline < 0 ? '' : text.slice(newline + 1);
    if (header.format !== format) return { note: 'it was written by another version of changelog-sync' };
    if (header.length !== rest.length || header.sha256 !== sha256(rest)) return { note: 'it is corrupt or incomplete (its checksum does not match)' };
    if (header.fingerprint !== fingerprint) return { note: foreign };
    return { value: JSON.parse(rest) as unknown };
  } catch (err) {
    return { note: `it is corrupt or incomplete (${(err as Error).message})` };
  }
}

/**
 * Writes `value` as a cache file (its folder made first), atomically.
 *
 * @param details more fields of the first line, for a reader of the file (`bodies`: how many).
 * @throws the file system's error.
 */
export async function writeCacheFile(file: string, format: string, fingerprint: string, value: unknown, details: Record<string, unknown> = {}): Promise<void> {
  const rest = JSON.stringify(value);
  const header = JSON.stringify({ format, fingerprint, sha256: sha256(rest), length: rest.length, ...details });
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${header}\n${rest}`);
}
