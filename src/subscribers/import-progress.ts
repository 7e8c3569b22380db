/**
 * The progress of a subscriber import, so a stopped import and its rerun account for every row:
 * `.changelog/subscribers-import.json` records before each batch which rows it carries, and after
 * its answer which the service added. A killed run leaves it; the next import of the same rows
 * tells what that run added (or sent, answer lost) from earlier subscribers. A run that ends
 * removes it. Only line numbers and a hash of the rows: no address or name is committed.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-file.js';
import { fileError } from '../core/file-error.js';
import { sha256 } from '../core/hash.js';
import { emailKey } from './validate.js';

/** The progress file, in the state directory. */
const PROGRESS_FILE = 'subscribers-import.json';

/** One batch as the progress file records it. */
interface BatchRecord {
  /** 1-based. */
  index: number;
  /** Lines of the rows sent. */
  lines: number[];
  /** `sending` until the answer came; then `done`, with the lines the service added. */
  state: 'sending' | 'done';
  added?: number[];
  at: string;
}

/** The file's content. */
interface ProgressFile {
  version: 1;
  /** sha256 of the file's rows (line and address): the same rows, the same import. */
  rows: string;
  batches: BatchRecord[];
}

/** What an earlier, stopped run of the same import did to a line. */
export interface EarlierOutcome {
  batch: number;
  /** `added`: in the service's answer; `sent`: sent, its answer lost when the run stopped. */
  how: 'added' | 'sent';
  at: string;
}

/** The progress of one import run, and what an earlier stopped run of the same rows did. */
export class ImportProgress {
  private readonly batches: BatchRecord[] = [];
  private write: Promise<void> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly rows: string,
    /** By line: what a stopped earlier run did. */
    readonly earlier: ReadonlyMap<number, EarlierOutcome>,
  ) {}

  /**
   * Reads the progress an earlier run of the same rows left, and starts this run's.
   * @param rows every row of the file: its line and address.
   * @throws {ChangelogSyncError} `E_FILE` when the progress file exists and cannot be read.
   */
  static async open(stateDir: string, rows: ReadonlyArray<{ line: number; email: string }>): Promise<ImportProgress> {
    const path = join(stateDir, PROGRESS_FILE);
    const key = sha256(JSON.stringify(rows.map((r) => [r.line, emailKey(r.email)])));
    const earlier = new Map<number, EarlierOutcome>();
    let json: Partial<ProgressFile> | null | undefined;
    try {
      json = JSON.parse(await readFile(path, 'utf8')) as Partial<ProgressFile> | null;
    } catch (err) {
      // Missing, or not JSON (no `code`): as if there were none (it only names earlier outcomes).
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== undefined && code !== 'ENOENT') throw fileError(err, { file: path, step: 'reading the progress of an earlier subscriber import' });
    }
    if (json?.rows === key && Array.isArray(json.batches)) {
      for (const b of json.batches) {
        const added = new Set(b.added ?? []);
        for (const line of b.lines ?? []) {
          if (b.state === 'sending') earlier.set(line, { batch: b.index, how: 'sent', at: b.at });
          else if (added.has(line)) earlier.set(line, { batch: b.index, how: 'added', at: b.at });
        }
      }
    }
    return new ImportProgress(path, key, earlier);
  }

  /**
   * Rows found on the service (`exists`) that a stopped earlier run added or sent: their
   * reason becomes `added-earlier` and their message says which batch, when.
   */
  markEarlier(rows: Array<{ line: number; reason: string; message: string }>): void {
    for (const row of rows) {
      const e = row.reason === 'exists' ? this.earlier.get(row.line) : undefined;
      if (!e) continue;
      row.reason = 'added-earlier';
      row.message = `${e.how} by an earlier run of this import that was stopped (batch ${e.batch}, ${e.at}${e.how === 'sent' ? ', its answer lost' : ''}): on the service now`;
    }
  }

  /**
   * Sends one batch, recording `sending` (flushed) before and `done` with the added lines after.
   * @param added of the answer: the addresses the service added.
   * @throws {ChangelogSyncError} `E_FILE` when the progress cannot be written (nothing sent then).
   */
  async track<T extends { line: number; email: string }, R>(index: number, items: readonly T[], send: () => Promise<R>, added: (answer: R) => readonly string[]): Promise<R> {
    const record: BatchRecord = { index, lines: items.map((r) => r.line), state: 'sending', at: new Date().toISOString() };
    this.batches.push(record);
    await this.save();
    const answer = await send();
    const keys = new Set(added(answer).map(emailKey));
    record.state = 'done';
    record.added = items.filter((r) => keys.has(emailKey(r.email))).map((r) => r.line);
    await this.save();
    return answer;
  }

  /** The run ended (not stopped): the file is removed, nothing is left for a rerun to read. */
  async finish(): Promise<void> {
    await this.write;
    await rm(this.path, { force: true });
  }

  private save(): Promise<void> {
    const file: ProgressFile = { version: 1, rows: this.rows, batches: this.batches };
    const text = `${JSON.stringify(file)}\n`;
    this.write = this.write.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFileAtomic(this.path, text);
    }).catch((err: unknown) => {
      throw fileError(err, { file: this.path, step: 'recording the progress of the subscriber import' });
    });
    return this.write;
  }
}
