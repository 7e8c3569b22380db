/**
 * A mirror file as pull reads it: its bytes and hash, whether the writer edited it since
 * pull or push wrote it, and the writer's own fields a rewrite keeps
 * (docs/sync.md#sync-state). The frontmatter fields pull reads without a full parse are read by
 * `frontmatter.ts`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { parseEntryFile, type EntryFile } from '../../entry/entry-file.js';
import type { KeptFields } from './mirror-writer.js';
import { CONFLICTS_DIR, syncedHash, type EntryState } from '../store/state.js';
import { contentHash } from '../../core/hash.js';

/** A mirror file as read: its bytes and {@link contentHash}. */
export interface LocalFile {
  raw: Buffer;
  hash: string;
}

/** A mirror file, or null when it does not exist. */
export function readMirrorFile(contentDir: string, rel: string): LocalFile | null {
  try {
    const raw = readFileSync(join(contentDir, rel));
    return { raw, hash: contentHash(raw) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new ChangelogSyncError('E_FILE', `cannot read ${join(contentDir, rel)}: ${(err as Error).message}`, { file: join(contentDir, rel), cause: err });
  }
}

/** Conflict copies present in the state directory (`conflicts/<name>.md`). */
export function listConflictFiles(stateDir: string): Set<string> {
  try {
    return new Set(readdirSync(join(stateDir, CONFLICTS_DIR)).map((n) => `${CONFLICTS_DIR}/${n}`));
  } catch {
    return new Set();
  }
}

export function parsedOrNull(rel: string, raw: Buffer | string): EntryFile | null {
  try {
    return parseEntryFile(rel, raw);
  } catch {
    return null;
  }
}

/** {@link syncedHash} of a parsed file. */
export function syncedOf(f: EntryFile): string {
  return syncedHash(f.data, f.body);
}

/**
 * True when the writer changed what mirrors the service since pull or push last wrote the file:
 * not for the same bytes, a missing file, or a change to the writer's own fields only.
 */
export function isEdited(rec: EntryState, file: LocalFile | null): boolean {
  if (file === null || file.hash === rec.localHash) return false;
  if (!rec.syncedHash) return true;
  const parsed = parsedOrNull(rec.file, file.raw);
  return !parsed || syncedOf(parsed) !== rec.syncedHash;
}

/** The writer's local fields of a file being rewritten (none when it does not parse). */
export function keptFields(rel: string, raw: Buffer): KeptFields | undefined {
  const parsed = parsedOrNull(rel, raw);
  if (!parsed) return undefined;
  const keep: KeptFields = {};
  if (parsed.data.tags) keep.tags = parsed.data.tags;
  if (Object.keys(parsed.extra).length > 0) keep.extra = parsed.extra;
  return keep;
}
