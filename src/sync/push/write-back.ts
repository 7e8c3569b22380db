/**
 * The write-back of an identifier into the file that created (or, found again, is) a
 * remote entry: push after a POST, and the recovery before a pull (`recovery.ts`) after a
 * lost answer or a lost commit-back (docs/sync.md#push-guarantees).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { failpoint } from '../../core/failpoint.js';
import { fileError } from '../../core/file-error.js';
import { parseEntryFile } from '../../entry/entry-file.js';
import { frontmatterField } from '../../entry/frontmatter.js';
import { addFrontmatterFields } from '../../entry/frontmatter-writer.js';
import { syncedHash, type EntryState, type SyncState } from '../store/state.js';
import { contentHash } from '../../core/hash.js';

/** Attempts of a write-back that finds the file changed under it. */
const WRITE_BACK_ATTEMPTS = 5;

/**
 * Writes the identifier (and status and slug) into the frontmatter as added lines, atomically,
 * on the file's current content: read again just before writing, and started over if a writer
 * saved it in between.
 * @throws {ChangelogSyncError} `E_FILE` when the file is gone, has no frontmatter, or cannot be written.
 */
export async function writeBack(contentDir: string, rel: string, identifier: string, status: string | undefined, slug: string, state: SyncState): Promise<void> {
  const abs = join(contentDir, rel);
  for (let attempt = 1; ; attempt++) {
    let current: string;
    try {
      current = await readFile(abs, 'utf8');
    } catch (cause) {
      throw fileError(cause, { file: rel, step: 'reading the file to write the identifier back' });
    }
    const fields: Record<string, string> = {};
    if (frontmatterField(current, 'slug') === undefined) fields.slug = slug;
    if (status) fields.status = status;
    fields.identifier = identifier;
    const text = addFrontmatterFields(rel, current, fields);
    let changed = false;
    try {
      await writeFileAtomic(abs, text, {
        tmpfileCreated: async () => {
          failpoint('write-back:tmp-created');
          if ((await readFile(abs, 'utf8').catch(() => undefined)) !== current) {
            changed = true;
            throw new Error(`${rel} changed during the write-back`);
          }
        },
      });
    } catch (err) {
      if (changed && attempt < WRITE_BACK_ATTEMPTS) continue;
      if (err instanceof ChangelogSyncError) throw err;
      if (changed) throw new ChangelogSyncError('E_FILE', `${rel}: ${(err as Error).message}`, { file: rel, cause: err });
      throw fileError(err, { file: rel, step: 'writing the identifier back into the file' });
    }
    // Recorded as pull records a file (CRLF read as LF; what mirrors the service apart), so
    // that a checkout with core.autocrlf or a tag added later is not taken for an edit.
    const record: EntryState = { file: rel, remoteHash: null, localHash: contentHash(text) };
    try {
      const parsed = parseEntryFile(rel, text);
      record.syncedHash = syncedHash(parsed.data, parsed.body);
    } catch {
      /* the file was valid when planned; a writer's edit since is read by the next pull */
    }
    state.entries[identifier] = record;
    return;
  }
}
