/**
 * The entry memo: the previous build's entry files parsed, by the SHA-256 of their bytes
 * (entry-files.ts's `ParseMemo`), so a build parses only changed files' YAML (about a second at
 * 10,000 entries). One file, `entries.json`, of cache-file.ts's format under the build's
 * fingerprint (which covers the parser's code), with this build's files only. A parse that JSON
 * would not give back exactly is not kept (`parsedEntryOf`).
 */
import { join } from 'node:path';
import type { ParseMemo } from '../../entry/entry-files.js';
import type { ParsedEntry } from '../../entry/entry-file.js';
import { readCacheFile, writeCacheFile } from './cache-file.js';

/** The format of `entries.json`; another one is ignored. */
const FORMAT = 'changelog-sync-entry-memo/1';

/** The memo's file in the cache folder. */
export const ENTRY_MEMO_FILE = 'entries.json';

/** The entry memo, opened for one build. */
export interface EntryMemo {
  /** What the build's reading of the entry files takes from, and adds to. */
  memo: ParseMemo;
  /** Files taken from the memo, and parsed, in this build so far. */
  readonly stats: { hits: number; misses: number };
  /** Why the previous memo was not used (corrupt, another version or fingerprint), else undefined. */
  readonly note: string | undefined;
  /**
   * Writes this build's files (only those) atomically.
   * @throws when the folder cannot be written (the build reports it as a warning).
   */
  save(): Promise<void>;
}

/** Whether a value read from the file has the shape of a {@link ParsedEntry}. */
function isParsedEntry(value: unknown): value is ParsedEntry {
  const v = value as Partial<ParsedEntry> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.data === 'object' && v.data !== null && typeof v.extra === 'object' && v.extra !== null &&
    Number.isSafeInteger(v.bodyAt) && v.bodyAt! >= 0 && (v.notes === undefined || (Array.isArray(v.notes) && v.notes.every((n) => typeof n === 'string')))
  );
}

/** Opens the memo in `dir` for `fingerprint`: missing, foreign or corrupt, it is empty (with a {@link EntryMemo.note} saying why). */
export async function openEntryMemo(dir: string, fingerprint: string): Promise<EntryMemo> {
  const file = join(dir, ENTRY_MEMO_FILE);
  const { value, note: unusable } = await readCacheFile(file, FORMAT, fingerprint);
  let note = unusable;
  let previous = new Map<string, ParsedEntry>();
  if (value !== undefined) {
    const entries = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : undefined;
    if (entries?.every(([, v]) => isParsedEntry(v))) previous = new Map(entries as Array<[string, ParsedEntry]>);
    else note = 'it is corrupt (not a map of parsed entry files)';
  }
  const current = new Map<string, ParsedEntry>();
  const stats = { hits: 0, misses: 0 };
  return {
    stats,
    note: note && `the entry memo (${file}) was not used: ${note}; every entry file was parsed again`,
    memo: {
      get(hash) {
        const parsed = previous.get(hash);
        if (parsed) stats.hits++;
        else stats.misses++;
        return parsed;
      },
      set(hash, parsed) {
        current.set(hash, parsed);
      },
    },
    async save() {
      await writeCacheFile(file, FORMAT, fingerprint, Object.fromEntries(current), { entries: current.size });
    },
  };
}
