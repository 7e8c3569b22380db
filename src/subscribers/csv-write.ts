/**
 * Writing subscriber lists as CSV (issue 5: `subscribers export`, `subscribers list --csv`).
 *
 * csv-stringify writes the CSV (RFC 4180 quoting). Its `escape_formulas` option applies
 * the OWASP guidance on CSV injection: a cell that starts with `=`, `+`, `-`, `@`, a tab
 * or a carriage return (or the full-width `＝＋－＠`) gets a leading `'`, so that a
 * spreadsheet shows it as text instead of running it as a formula. Names and addresses
 * come from sign-up forms, so they are untrusted input.
 *
 * @module
 */
import { stringify } from 'csv-stringify/sync';
import { writeFileAtomic } from '../core/atomic-file.js';
import type { Subscriber } from '../service/schemas.js';

/** The columns of an export: the service's own field names (spec "Subscriber"). */
const SUBSCRIBER_CSV_COLUMNS = ['email', 'name', 'verified_at', 'created_at'] as const;

/**
 * First characters after which a cell is a formula-injection escape: what
 * csv-stringify's `escape_formulas` prefixes with `'`. The reader removes that `'` again
 * (see `csv-read.ts`), so that an export imports back unchanged.
 */
export const FORMULA_TRIGGERS: ReadonlySet<string> = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

/** Options of {@link subscribersToCsv}. */
export interface SubscriberCsvOptions {
  /**
   * Start with a UTF-8 byte order mark and end records with CRLF, as Excel's own
   * "CSV UTF-8" does, so that spreadsheets show names in any script. Default false
   * (plain UTF-8 with LF, for a terminal or a pipe).
   */
  spreadsheet?: boolean;
  /** Maps each address before writing (masking in CI). Default: unchanged. */
  email?: (email: string) => string;
}

/**
 * Subscribers as CSV with a header row `email,name,verified_at,created_at`, safe against
 * spreadsheet formula injection. Timestamps are written as the service returned them.
 */
export function subscribersToCsv(subscribers: readonly Subscriber[], options: SubscriberCsvOptions = {}): string {
  const show = options.email ?? ((e: string) => e);
  return stringify(
    subscribers.map((s) => [show(s.email), s.name ?? '', s.verified_at ?? '', s.created_at ?? '']),
    {
      header: true,
      columns: [...SUBSCRIBER_CSV_COLUMNS],
      escape_formulas: true,
      bom: options.spreadsheet ?? false,
      record_delimiter: options.spreadsheet ? 'windows' : 'unix',
      // An explicit record delimiter turns off the quoting of values with a lone CR or
      // LF in csv-stringify; a name with a line break would then split its record.
      quote_record_delimiter: true,
    },
  );
}

/**
 * Writes a CSV file atomically (temp file, fsync, rename: a reader never sees half a
 * file, and a failed write leaves any earlier file intact), readable by its owner only:
 * it holds personal data.
 *
 * @param path where to write.
 * @param text the CSV.
 * @throws the file system's error when the directory is missing or not writable.
 */
export async function writeCsvFile(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, { mode: 0o600 });
}
