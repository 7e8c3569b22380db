/**
 * The entry memo: the previous build's entry files parsed, by the SHA-256 of their bytes
 * (entry-files.ts's `ParseMemo`), so a build parses only changed files' YAML (about a second at
 * 10,000 entries). One file, `entries.json`, of cache-file.ts's format under the build's
 * fingerprint (which covers the parser's code), with this build's files only. A parse that JSON
 * would not give back exactly is not kept (`parsedEntryOf`).
 */
import { join } from 'node:path';
import type { ParsedEntry } from '../../entry/entry-file.js';
import { openKeptMap, type KeptMap } from './cache-file.js';

/** The memo's file in the cache folder. */
export const ENTRY_MEMO_FILE = 'entries.json';

/** The entry memo, opened for one build: what the build's reading of the entry files takes from, and adds to. */
export type EntryMemo = KeptMap<ParsedEntry>;

/** Whether a value read from the file has the shape of a {@link ParsedEntry}. */
function isParsedEntry(value: unknown): value is ParsedEntry {
  const v = value as Partial<ParsedEntry> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.data === 'object' && v.data !== null && typeof v.extra === 'object' && v.extra !== null &&
    Number.isSafeInteger(v.bodyAt) && v.bodyAt! >= 0 && (v.notes === undefined || (Array.isArray(v.notes) && v.notes.every((n) => typeof n === 'string')))
  );
}

/** Opens the memo in `dir` for `fingerprint`: missing, foreign or corrupt, it is empty (with a note saying why). */
export function openEntryMemo(dir: string, fingerprint: string): Promise<EntryMemo> {
  return openKeptMap(join(dir, ENTRY_MEMO_FILE), fingerprint, {
    format: 'changelog-sync-entry-memo/1',
    name: 'the entry memo',
    values: 'parsed entry files',
    without: 'every entry file was parsed again',
    count: 'entries',
    isValue: isParsedEntry,
  });
}
