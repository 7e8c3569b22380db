/**
 * `subscribers export`: every subscriber (endpoint 7) as spreadsheet-safe CSV (`csv-write.ts`) to
 * stdout or a file written atomically, owner-readable, and never inside the content, site or
 * state directories: subscriber data must not reach git or the site.
 */
import { realpathSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { ChangelogClient } from '../service/client.js';
import { ChangelogSyncError } from '../core/errors.js';
import type { Subscriber } from '../service/schemas.js';
import { writeFileAtomic } from '../core/atomic-file.js';
import { isInside } from '../core/project-path.js';
import { subscribersToCsv } from './csv-write.js';

/** A directory an export must not be written into, and what it is. */
export interface ProtectedDir {
  dir: string;
  /** E.g. "the content directory (committed to git)". */
  what: string;
}

/** Resolves symbolic links of the longest existing part of a path. */
function realish(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : resolve(realish(parent), relative(parent, abs));
  }
}

/** Options of {@link exportSubscribers}. */
export interface ExportOptions {
  client: ChangelogClient;
  /** The file to write, absolute (the CLI resolves `--out` against its working directory); undefined: return the CSV (for stdout). */
  out?: string | undefined;
  /** Directories the file must not be in (checked before any request). */
  protectedDirs?: readonly ProtectedDir[];
}

/** The result of {@link exportSubscribers}. */
export interface ExportResult {
  count: number;
  /** The file written, when `out` was given. */
  file?: string;
  /** The CSV, when no `out` was given. */
  csv?: string;
  subscribers: Subscriber[];
}

/**
 * Exports every subscriber: one `GET /api/subscribers`, then a CSV with a header row (a file
 * with BOM and CRLF, stdout plain).
 * @throws {ChangelogSyncError} `E_USAGE` for an `out` in a protected directory, `E_FILE`, or the `GET`'s error.
 */
export async function exportSubscribers(options: ExportOptions): Promise<ExportResult> {
  if (options.out !== undefined) {
    // Refused before any request: an `--out` inside a directory that is committed or published.
    const target = realish(options.out);
    for (const { dir, what } of options.protectedDirs ?? []) {
      if (isInside(realish(dir), target)) {
        throw new ChangelogSyncError('E_USAGE', `--out ${options.out} is inside ${what}: subscriber data must not be committed or published`, {
          field: '--out',
          hint: 'write the export outside the project, e.g. --out ~/subscribers.csv',
        });
      }
    }
  }
  const subscribers = await options.client.listSubscribers();
  if (options.out === undefined) return { count: subscribers.length, csv: subscribersToCsv(subscribers), subscribers };
  const file = resolve(options.out);
  try {
    // Readable by its owner only: it holds personal data.
    await writeFileAtomic(file, subscribersToCsv(subscribers, { spreadsheet: true }), { mode: 0o600 });
  } catch (cause) {
    throw new ChangelogSyncError('E_FILE', `cannot write ${options.out}: ${(cause as Error).message}`, {
      file: options.out,
      cause,
      hint: 'check that the directory exists and is writable',
    });
  }
  return { count: subscribers.length, file, subscribers };
}
