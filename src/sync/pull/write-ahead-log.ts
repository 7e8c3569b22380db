/**
 * Pull's write-ahead log, `.changelog/pull-ahead.jsonl` (docs/sync.md#sync-state). Pull writes
 * mirror files first and the state last; a pull killed between leaves files the state does not
 * describe (the next pull would adopt an older text, or see a local edit and a conflict).
 *
 * So before each mirror file is written, one line is appended: identifier, file, remote hash and
 * the hashes of the text about to be written. The next pull applies the log first: a record whose
 * file has exactly that text replaces the state record; any other (a write that never happened,
 * or a file edited since) is dropped. The log is removed once the state is saved.
 *
 * One `write` call per line, before the file's rename: a kill leaves every line whole or absent
 * (a torn last line, from a full disk, is ignored). Not fsynced, like the files it describes.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { EntryState, SyncState } from '../store/state.js';

/** The log's file name, inside the state directory. */
export const PULL_AHEAD_FILE = 'pull-ahead.jsonl';

/** One line of the log: the state record a mirror file write will make true. */
export interface AheadRecord {
  identifier: string;
  /** The file written, relative to the content directory (`entries/...`). */
  file: string;
  /** `remoteHash` of the entry version written. */
  remoteHash: string;
  /** `contentHash` of the text written. */
  localHash: string;
  /** `syncedHash` of the text written. */
  syncedHash: string;
}

/** The log, open for appending (see {@link openPullAhead}). */
export interface PullAheadLog {
  /**
   * Appends one record (one `write` call).
   * @throws the file system's error (ENOSPC, EACCES): the file is then not written either.
   */
  write(record: AheadRecord): void;
  /** Closes the log's file (when it was opened). */
  close(): void;
}

/** This run's log, opened on its first record (a pull writing nothing creates none): one descriptor, not one open per file. */
export function openPullAhead(stateDir: string): PullAheadLog {
  let fd: number | undefined;
  return {
    write(record) {
      fd ??= openSync(join(stateDir, PULL_AHEAD_FILE), 'a');
      writeSync(fd, `${JSON.stringify(record)}\n`);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/**
 * Applies the log a killed pull left to `state` (in memory; the caller saves it): a record whose
 * file has the recorded text replaces the identifier's state record.
 * @param readHash `contentHash` of a file relative to the content directory, or undefined when missing.
 * @returns the identifiers whose state record the log replaced, with the record they had before (undefined: none).
 */
export function applyPullAhead(stateDir: string, state: SyncState, readHash: (rel: string) => string | undefined): Map<string, EntryState | undefined> {
  const previous = new Map<string, EntryState | undefined>();
  let text: string;
  try {
    text = readFileSync(join(stateDir, PULL_AHEAD_FILE), 'utf8');
  } catch {
    return previous;
  }
  for (const line of text.split('\n')) {
    const record = parseRecord(line);
    if (!record || readHash(record.file) !== record.localHash) continue;
    if (!previous.has(record.identifier)) previous.set(record.identifier, state.entries[record.identifier]);
    state.entries[record.identifier] = { file: record.file, remoteHash: record.remoteHash, localHash: record.localHash, syncedHash: record.syncedHash };
  }
  return previous;
}

/** Removes the log (after the state that includes it is saved). */
export function clearPullAhead(stateDir: string): void {
  rmSync(join(stateDir, PULL_AHEAD_FILE), { force: true });
}

/** A well-formed line; a torn or foreign one is not. Paths stay inside `entries/`. */
const AHEAD_LINE = z.object({
  identifier: z.string().min(1),
  file: z.string().regex(/^entries\/[^/\\]+\.md$/).refine((f) => !f.includes('..')),
  remoteHash: z.string(),
  localHash: z.string().regex(/^[0-9a-f]{64}$/),
  syncedHash: z.string(),
});

/** A well-formed record, or undefined. */
function parseRecord(line: string): AheadRecord | undefined {
  try {
    return AHEAD_LINE.parse(JSON.parse(line));
  } catch {
    return undefined;
  }
}
