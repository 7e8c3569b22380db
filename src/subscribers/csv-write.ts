/**
 * Writing subscriber lists as CSV (`subscribers export`, `subscribers list --csv`): csv-stringify
 * quotes, and OWASP's CSV-injection rule holds in every locale. A spreadsheet splitting on `;` or
 * tabs reads a quoted `"x;=HYPERLINK(...)"` as several cells, so a cell with `,`, `;` or a tab is
 * quoted, and `'` goes before every part a spreadsheet could read as a cell (the start, and after
 * each `;`, tab and line break) that starts with `=`, `+`, `-`, `@`, tab, CR or their full-width
 * forms ({@link neutralizeFormulas}). Names and addresses come from sign-up forms: untrusted.
 */
import { stringify } from 'csv-stringify/sync';
import type { Subscriber } from '../service/schemas.js';

/** The columns of an export: the service's own field names (spec "Subscriber"). */
const SUBSCRIBER_CSV_COLUMNS = ['email', 'name', 'verified_at', 'created_at'] as const;

/** The first characters that make a spreadsheet cell a formula (OWASP "CSV Injection"), full-width forms included. */
const TRIGGER = '[=+\\-@\\t\\r\\uFF1D\\uFF0B\\uFF0D\\uFF20]';

/**
 * Where a part of a cell a spreadsheet may read as a cell starts (cell start, after `;`, tab or
 * line break) when a formula trigger follows (after any `'` and quotes, so that the escape undoes
 * exactly: {@link FORMULA_ESCAPE}).
 */
const PART_START = new RegExp(`(^|[;\\t\\r\\n])(?='*"*${TRIGGER})`, 'g');

/**
 * The `'` that {@link neutralizeFormulas} put at a part's start: the reader removes it
 * (`csv-read.ts`), so that an export imports back unchanged.
 */
export const FORMULA_ESCAPE = new RegExp(`(^|[;\\t\\r\\n])'(?='*"*${TRIGGER})`, 'g');

/**
 * A cell with a `'` before each part that could be read as a formula: `x;=HYPERLINK(...)` becomes
 * `x;'=HYPERLINK(...)`, `-2` becomes `'-2`; one already starting with `'` gets one more.
 */
function neutralizeFormulas(cell: string): string {
  return cell.replace(PART_START, "$1'");
}

/** Options of {@link subscribersToCsv}. */
export interface SubscriberCsvOptions {
  /** A UTF-8 byte order mark and CRLF, as Excel's "CSV UTF-8" (names in any script). Default false: plain UTF-8, LF. */
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
      cast: { string: neutralizeFormulas },
      // Quoted where any common locale's separator is inside, not only this file's comma.
      quoted_match: /[,;\t]/,
      bom: options.spreadsheet ?? false,
      record_delimiter: options.spreadsheet ? 'windows' : 'unix',
      // An explicit record delimiter turns off the quoting of values with a lone CR or
      // LF in csv-stringify; a name with a line break would then split its record.
      quote_record_delimiter: true,
    },
  );
}
