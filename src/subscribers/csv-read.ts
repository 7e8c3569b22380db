/**
 * Reading subscriber lists other tools exported as CSV. csv-parse does the CSV (BOM, `,` or `;`
 * chosen from the header, any line end, quoted fields); this module adds:
 *
 * - the columns, by header name ignoring case, spaces, hyphens and underscores: the address,
 *   the name (or first + last), and a verification date only from the column the caller names
 *   (`verified_at`, `created_at`, ... mean different things in different tools);
 * - the 1-based line each record starts on (a quoted field may span lines);
 * - the `'` a formula-safe export put before `=`, `+`, `-`, `@`, tab or CR removed (`csv-write.ts`).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CsvError, parse } from 'csv-parse/sync';
import { ChangelogSyncError, ValidationError } from '../core/errors.js';
import { FORMULA_ESCAPE } from './csv-write.js';

/** Field delimiters the reader chooses between. */
type CsvDelimiter = ',' | ';';

/** A recognised column: its position and its header as written in the file. */
export interface CsvColumn {
  index: number;
  header: string;
}

/** The columns a subscriber file provides. Only `email` is required. */
export interface SubscriberColumns {
  email: CsvColumn;
  name?: CsvColumn;
  firstName?: CsvColumn;
  lastName?: CsvColumn;
  /** The verification date column, only when the caller named one. */
  verified?: CsvColumn;
}

/** One record of a subscriber file, cells as written (not yet validated). */
interface SubscriberCsvRow {
  /** 1-based line of the file on which the record starts. */
  line: number;
  email: string;
  /** `name`, else `First Name` and `Last Name` joined by a space; trimmed, white space (line breaks too) collapsed to one space, NFC. */
  name: string;
  /** The verification date cell, when a verification column was named. */
  verified?: string;
  /** Fields beyond the header's (an unquoted delimiter inside a value). */
  extraFields: number;
}

/** A parsed subscriber file. */
export interface SubscriberCsv {
  file: string;
  delimiter: CsvDelimiter;
  header: string[];
  columns: SubscriberColumns;
  rows: SubscriberCsvRow[];
  /** Headers that look like a date a tool recorded (for the hint of the consent rule). */
  dateColumns: string[];
  /** Records whose every field is empty (trailing `;;;` lines of spreadsheets), ignored. */
  blankRows: number;
}

/** Options of {@link parseSubscriberCsv}. */
export interface ReadSubscriberCsvOptions {
  /** Header of the column that holds each subscriber's verification date (matched like the others). */
  verifiedColumn?: string | undefined;
  /** The directory a relative `file` is read from: the run's working directory (`Config.cwd`). Default: none (`file` is absolute). */
  cwd?: string | undefined;
}

/** A header reduced for matching: NFKC, lower case, letters and digits only. */
export function headerKey(header: string): string {
  return header.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** The headers (as {@link headerKey} reduces them) of each column but the verification date's. */
const ROLE_HEADERS: Record<Exclude<keyof SubscriberColumns, 'verified'>, Set<string>> = {
  email: new Set(['email', 'emailaddress']),
  name: new Set(['name', 'fullname']),
  firstName: new Set(['firstname', 'givenname']),
  lastName: new Set(['lastname', 'surname', 'familyname']),
};
const DATE_HEADERS = new Set(['verifiedat', 'confirmedat', 'createdat', 'confirmtime', 'optintime', 'subscribedat']);

/**
 * Reads and parses a subscriber file.
 * @throws {ChangelogSyncError} `E_FILE` when it cannot be read, is not UTF-8 or not well-formed
 *   CSV (with the line); `E_VALIDATION` for a header without an address column, with a column
 *   twice, or lacking the named verification column.
 */
export async function readSubscriberCsv(file: string, options: ReadSubscriberCsvOptions = {}): Promise<SubscriberCsv> {
  let bytes: Buffer;
  try {
    bytes = await readFile(options.cwd === undefined ? file : resolve(options.cwd, file));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new ChangelogSyncError('E_FILE', `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (cause as Error).message}`, {
      file,
      cause,
      hint: 'check the path of the CSV file',
    });
  }
  return parseSubscriberCsv(bytes, file, options);
}

/**
 * Parses a subscriber file's bytes; `file` names it in messages.
 * @throws as {@link readSubscriberCsv}.
 */
export function parseSubscriberCsv(bytes: Buffer, file: string, options: ReadSubscriberCsvOptions = {}): SubscriberCsv {
  assertUtf8(bytes, file);
  const delimiter = chooseDelimiter(bytes);
  let records: Array<{ record: string[]; info: { bytes: number } }>;
  try {
    records = parse(bytes, { bom: true, delimiter, info: true, skip_empty_lines: true, relax_column_count: true }) as unknown as typeof records;
  } catch (cause) {
    throw csvSyntaxError(cause, file);
  }
  if (records.length === 0) {
    throw new ValidationError(`${file} is empty: no header row`, { file, line: 1, hint: 'export the list with a header row, e.g. "email,name"' });
  }

  const lineAt = lineLocator(bytes);
  const header = records[0]!.record.map((h) => unescapeFormula(h).trim());
  const columns = recogniseColumns(header, file, options.verifiedColumn);
  const rows: SubscriberCsvRow[] = [];
  let blankRows = 0;
  for (let i = 1; i < records.length; i++) {
    const cells = records[i]!.record.map(unescapeFormula);
    if (cells.every((c) => c.trim() === '')) {
      blankRows++;
      continue;
    }
    const cell = (c: CsvColumn | undefined) => (c === undefined ? '' : (cells[c.index] ?? ''));
    const fullName = cell(columns.name).trim() || [cell(columns.firstName).trim(), cell(columns.lastName).trim()].filter(Boolean).join(' ');
    rows.push({
      line: lineAt(records[i - 1]!.info.bytes),
      email: cell(columns.email),
      name: fullName.replace(/\s+/gu, ' ').normalize('NFC'),
      ...(columns.verified ? { verified: cell(columns.verified) } : {}),
      extraFields: Math.max(0, cells.length - header.length),
    });
  }
  return {
    file,
    delimiter,
    header,
    columns,
    rows,
    dateColumns: header.filter((h) => DATE_HEADERS.has(headerKey(h))),
    blankRows,
  };
}

/**
 * Removes the `'` a formula-safe export put before a formula trigger (the undoing of
 * `neutralizeFormulas`, `csv-write.ts`).
 */
export function unescapeFormula(cell: string): string {
  return cell.replace(FORMULA_ESCAPE, '$1');
}

function assertUtf8(bytes: Buffer, file: string): void {
  const hint = 'save the file as "CSV UTF-8" (in Excel: File > Save As > CSV UTF-8; in LibreOffice: character set Unicode (UTF-8))';
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new ChangelogSyncError('E_FILE', `${file} is UTF-16, not UTF-8`, { file, line: 1, hint });
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const text = new TextDecoder('utf-8').decode(bytes);
    const bad = text.indexOf('\uFFFD');
    const line = text.slice(0, Math.max(0, bad)).split(/\r\n|\r|\n/).length;
    throw new ChangelogSyncError('E_FILE', `${file} is not UTF-8 (line ${line} has a byte sequence UTF-8 does not allow; Windows-1252 or Latin-1?)`, {
      file,
      line,
      hint,
    });
  }
}

/**
 * Comma or semicolon (decimal-comma locales): the one that splits the header into a recognised
 * address column, else into more fields (comma on a tie).
 */
function chooseDelimiter(bytes: Buffer): CsvDelimiter {
  const score = (d: CsvDelimiter): [number, number] => {
    try {
      const [first] = parse(bytes, { bom: true, delimiter: d, to_line: 1, relax_column_count: true, skip_empty_lines: true });
      const fields = first ?? [];
      return [fields.some((h) => ROLE_HEADERS.email.has(headerKey(h))) ? 1 : 0, fields.length];
    } catch {
      return [-1, 0];
    }
  };
  const [comma, semicolon] = [score(','), score(';')];
  if (semicolon[0] !== comma[0]) return semicolon[0] > comma[0] ? ';' : ',';
  return semicolon[1] > comma[1] ? ';' : ',';
}

function recogniseColumns(header: string[], file: string, verifiedColumn: string | undefined): SubscriberColumns {
  const found: Partial<Record<keyof typeof ROLE_HEADERS, CsvColumn>> = {};
  header.forEach((h, index) => {
    const key = headerKey(h);
    for (const [role, names] of Object.entries(ROLE_HEADERS) as Array<[keyof typeof ROLE_HEADERS, Set<string>]>) {
      if (!names.has(key)) continue;
      const earlier = found[role];
      if (earlier) {
        throw new ValidationError(`the header has two ${role === 'email' ? 'address' : 'name'} columns, "${earlier.header}" and "${h}"`, {
          file,
          line: 1,
          field: h,
          hint: 'delete or rename one of them, so that it is clear which one to import',
        });
      }
      found[role] = { index, header: h };
    }
  });
  if (!found.email) {
    throw new ValidationError(`no email column in the header (${header.map((h) => JSON.stringify(h)).join(', ')})`, {
      file,
      line: 1,
      field: 'email',
      hint: 'name the address column "email", "Email Address", "E-mail" (any case)',
    });
  }
  const columns: SubscriberColumns = { email: found.email, ...(found.name ? { name: found.name } : {}), ...(found.firstName ? { firstName: found.firstName } : {}), ...(found.lastName ? { lastName: found.lastName } : {}) };
  if (verifiedColumn !== undefined) {
    const index = header.findIndex((h) => headerKey(h) === headerKey(verifiedColumn));
    if (index < 0 || headerKey(verifiedColumn) === '') {
      throw new ValidationError(`--verified-column ${JSON.stringify(verifiedColumn)} is not a column of the header (${header.map((h) => JSON.stringify(h)).join(', ')})`, {
        file,
        line: 1,
        field: verifiedColumn,
        hint: 'pass the header of the column that records when each subscriber confirmed, as written in the first line of the file',
      });
    }
    if (index === found.email.index) {
      throw new ValidationError(`--verified-column names the address column "${header[index]}"`, { file, line: 1, field: header[index], hint: 'name the date column instead' });
    }
    columns.verified = { index, header: header[index]! };
  }
  return columns;
}

/**
 * Maps a byte offset to the 1-based line of the first non-empty line at or after it; offsets
 * are asked in increasing order (records in file order), so the line breaks are counted once.
 */
function lineLocator(bytes: Buffer): (offset: number) => number {
  const CR = 0x0d;
  const LF = 0x0a;
  let at = 0;
  let line = 1;
  return (offset: number) => {
    let start = offset;
    while (start < bytes.length && (bytes[start] === CR || bytes[start] === LF)) start++;
    // A line break ends at an LF, or at a CR without one after it.
    for (; at < start; at++) if (bytes[at] === LF || (bytes[at] === CR && bytes[at + 1] !== LF)) line++;
    return line;
  };
}

function csvSyntaxError(cause: unknown, file: string): ChangelogSyncError {
  if (!(cause instanceof CsvError)) return new ChangelogSyncError('E_FILE', `${file} is not a CSV file this tool can read: ${(cause as Error).message}`, { file, cause });
  const line = (cause as CsvError & { lines?: number }).lines;
  const hints: Record<string, string> = {
    CSV_QUOTE_NOT_CLOSED: 'a quoted value is not closed: add the closing double quote',
    CSV_INVALID_CLOSING_QUOTE: 'a value with a double quote inside must be quoted as a whole, with the inner quote doubled ("")',
    CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'nothing may follow a closing double quote but the delimiter',
  };
  return new ChangelogSyncError('E_FILE', `not well-formed CSV: ${cause.message}`, {
    file,
    ...(line ? { line } : {}),
    cause,
    hint: hints[cause.code] ?? 'open the file in a spreadsheet and save it again as CSV UTF-8',
  });
}
