/**
 * The local index: every entry file under `content/entries/`, read once per command.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangelogSyncError } from '../core/errors.js';
import { entryFromParsed, parseEntryFile, parsedEntryOf, type EntryFile, type ParsedEntry } from './entry-file.js';
import { sha256 } from '../core/hash.js';
import { ENTRIES_DIR } from '../core/content-layout.js';

/** One file of the index: parsed, or the error that stopped it. */
export interface IndexedFile {
  /** Path relative to the content directory, `/`-separated (e.g. `entries/2026-11-22-x.md`). */
  rel: string;
  /** Absolute path. */
  abs: string;
  /** sha256 of the raw bytes. */
  hash: string;
  raw: Buffer;
  /** The parsed file, unless parsing failed. */
  entry?: EntryFile;
  /** Why the file could not be parsed. */
  error?: ChangelogSyncError;
}

/**
 * Parsed entry files by the SHA-256 of their bytes, kept from one command to the next (the
 * build's is in its cache folder, site/cache/entry-memo.ts): a file whose bytes a memo knows
 * is not parsed again. Parsing the YAML of 10,000 frontmatters takes about a second.
 */
export interface ParseMemo {
  get(hash: string): ParsedEntry | undefined;
  set(hash: string, parsed: ParsedEntry): void;
}

/** Every name in `content/entries/` (entry files, and whatever else is there); none when it does not exist. */
export async function listEntriesDir(contentDir: string): Promise<string[]> {
  try {
    return await readdir(join(contentDir, ENTRIES_DIR));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * Lists the `*.md` files of `content/entries/` (sorted), relative to the content directory.
 * @param names the folder's names, when the caller has listed it already ({@link listEntriesDir}).
 */
export async function listEntryFiles(contentDir: string, names?: readonly string[]): Promise<string[]> {
  return (names ?? (await listEntriesDir(contentDir))).filter((n) => n.endsWith('.md')).sort().map((n) => `${ENTRIES_DIR}/${n}`);
}

/**
 * Reads and parses entry files; errors are kept on the item, so one bad file stops no other.
 * Synchronous reads one after the other: faster than thousands of promises for small files, and
 * memory stays flat.
 * @param rels relative to the content directory; default every entry file.
 * @param memo parsed files to take from and add to (not one that fails to parse).
 */
export async function readEntryFiles(contentDir: string, rels?: string[], memo?: ParseMemo): Promise<IndexedFile[]> {
  const list = rels ?? (await listEntryFiles(contentDir));
  return list.map((rel) => {
    const abs = join(contentDir, rel);
    let raw: Buffer;
    try {
      raw = readFileSync(abs);
    } catch (err) {
      const error = new ChangelogSyncError('E_FILE', `${rel}: cannot read: ${(err as Error).message}`, { file: rel, cause: err });
      return { rel, abs, raw: Buffer.alloc(0), hash: '', error };
    }
    const item: IndexedFile = { rel, abs, raw, hash: sha256(raw) };
    try {
      const known = memo?.get(item.hash);
      item.entry = known ? entryFromParsed(rel, raw, known) : parseEntryFile(rel, raw);
      const parsed = memo && (known ?? parsedEntryOf(item.entry));
      if (parsed) memo.set(item.hash, parsed);
    } catch (err) {
      item.error = err instanceof ChangelogSyncError ? err : new ChangelogSyncError('E_FILE', `${rel}: ${(err as Error).message}`, { file: rel, cause: err });
    }
    return item;
  });
}
