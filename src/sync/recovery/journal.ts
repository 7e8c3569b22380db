/**
 * The push journal (docs/sync.md#at-most-once). Before each `POST /api/entry`, the file, its
 * slug and title are flushed to `.changelog/journal.json` (atomic write, fsync). A record a
 * later push finds means a crash or a lost response: the entry may exist, and is looked up by
 * slug before anything is sent again.
 *
 * | state | meaning | when a later run finds it |
 * |---|---|---|
 * | `sending` | POST started, no answer (yet) | found by slug: settled. Not found: not created, once `inDoubtUntil` has passed |
 * | `answered` | the service answered with an error | found by slug: settled. Not found: not created |
 * | `created` | identifier known, write-back not done | written back, without asking the service |
 *
 * A `sending` record whose sender still runs on this machine is left to that process. A record
 * is removed once settled: identifier written to the file, or the entry known not to exist.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { failpoint } from '../../core/failpoint.js';
import { fileError } from '../../core/file-error.js';
import type { ProcessIdentity } from '../../core/process-alive.js';
import { JOURNAL_FILE } from '../store/state.js';
import { writeQueue } from '../../core/write-queue.js';

/** One POST that was started and not yet settled. */
export interface JournalRecord {
  /** Entry file, relative to the content directory. */
  file: string;
  /** The slug sent: the key of reconciliation. */
  slug: string;
  title: string;
  /** ISO time the POST was started. */
  startedAt: string;
  /** ISO time until which a POST without an answer may still be processed (start + twice the request timeout): until then, "not listed" is not "not created". */
  inDoubtUntil?: string;
  /**
   * `sending`: the POST was started, its outcome unknown.
   * `answered`: the service answered with an error; the list shows the outcome.
   * `created`: the service created the entry, but its identifier is not yet written to the file.
   */
  state: 'sending' | 'answered' | 'created';
  /** The identifier, once known. */
  identifier?: string;
  /** The status the service gave, once known. */
  status?: string;
  /** What went wrong, for reports. */
  reason?: string;
  /**
   * The sending process (`process-alive.ts`): a `sending` record whose process still runs on this
   * machine is never sent again by another (docs/sync.md#fencing). Absent in older records.
   */
  sender?: ProcessIdentity;
}

/** The journal, kept in memory and flushed on every change. */
export class Journal {
  private records = new Map<string, JournalRecord>();

  private constructor(private readonly path: string) {}

  /**
   * Opens `.changelog/journal.json` (empty when absent).
   * @throws {ChangelogSyncError} `E_FILE` when it exists and is not a journal, or cannot be
   *   read (a directory in its place, no permission), naming it.
   */
  static async open(stateDir: string): Promise<Journal> {
    const journal = new Journal(join(stateDir, JOURNAL_FILE));
    let text: string | undefined;
    try {
      text = await readFile(journal.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(err, { file: journal.path, step: 'reading the push journal' });
    }
    if (text !== undefined && text.trim() !== '') {
      try {
        const json = JSON.parse(text) as { records?: JournalRecord[] };
        for (const r of json.records ?? []) journal.records.set(r.file, r);
      } catch (cause) {
        throw new ChangelogSyncError('E_FILE', `${journal.path} is not valid JSON`, {
          file: journal.path,
          cause,
          hint: 'do not delete it blindly: it lists entries whose creation may have happened; restore it from git or inspect it',
        });
      }
    }
    return journal;
  }

  /** Records left by earlier runs (or this one). */
  list(): JournalRecord[] {
    return [...this.records.values()];
  }

  /**
   * Records (or replaces) a record and waits until it is on disk.
   * @throws {ChangelogSyncError} `E_FILE` naming the journal when it cannot be written.
   */
  async put(record: JournalRecord): Promise<void> {
    this.records.set(record.file, record);
    await this.flush();
  }

  /**
   * Removes a settled record and waits until that is on disk.
   * @throws {ChangelogSyncError} `E_FILE` naming the journal when it cannot be written.
   */
  async remove(file: string): Promise<void> {
    if (!this.records.delete(file)) return;
    await this.flush();
  }

  /**
   * Resolves once a write that started after this call is on disk. Changes made while a
   * write runs share the next one (the snapshot is taken when a write starts).
   */
  private readonly flush = writeQueue(async () => {
    const text = `${JSON.stringify({ version: 1, records: this.list() }, null, 2)}\n`;
    try {
      await mkdir(dirname(this.path), { recursive: true });
      failpoint('journal:before-flush');
      await writeFileAtomic(this.path, text, { fsync: true, tmpfileCreated: () => failpoint('journal:tmp-created') });
    } catch (err) {
      throw fileError(err, { file: this.path, step: 'saving the push journal (the record of each POST, written before it is sent)' });
    }
    failpoint('journal:after-flush');
  });
}
