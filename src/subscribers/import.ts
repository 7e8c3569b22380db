/**
 * `subscribers import`: adds a CSV file's people as subscribers (docs/service-interface.md#endpoints,
 * 7 and 8). A wrong import mails or exposes real people, so every row is checked before anything
 * is sent, and ends in exactly one list of the result, with its line:
 *
 * - **skipped**: a duplicate, already a subscriber, added by an earlier stopped run
 *   (`import-progress.ts`), invalid, or refused by the consent rule;
 * - **added**: in the service's answer (or, after a lost answer, found in the list);
 * - **failed**: in a batch the service refused or did not answer;
 * - **not sent**: after a failure that would fail the rest, or beyond the day's budget.
 *
 * **Consent.** The service records a subscriber without `verified_at` as verified today
 * (endpoint 8, rule 4), so a row without a date is refused unless `--verified-at` gives one:
 * every row sent carries `verified_at`.
 */
import type { ChangelogClient } from '../service/client.js';
import type { ErrorCode } from '../core/errors.js';
import type { Subscriber } from '../service/schemas.js';
import { defaultBatchSize, runBatches, settleLostBatches, toBatches, type BatchRun, type BatchStatus } from './batches.js';
import type { CsvColumn, SubscriberColumns, SubscriberCsv } from './csv-read.js';
import { ImportProgress } from './import-progress.js';
import { emailKey, normalizeDate, normalizeEmail, utcToday } from './validate.js';

const INVALID = ['missing-email', 'invalid-email', 'too-many-fields', 'invalid-date', 'no-verification-date'] as const;

/** Why a row was not sent. */
export type SkipReason = 'duplicate' | 'exists' | 'added-earlier' | (typeof INVALID)[number];

/** Reasons that are a problem of the file to fix (exit code 5), unlike the harmless `duplicate`, `exists` and `added-earlier`. */
export const INVALID_REASONS: ReadonlySet<SkipReason> = new Set(INVALID);

/** A row that was not sent, and why. */
export interface SkippedRow {
  /** 1-based line of the file on which the row starts. */
  line: number;
  /** The address, normalised when it was valid, else as written. */
  email: string;
  reason: SkipReason;
  message: string;
  /** The column at fault (header as written), for invalid rows. */
  field?: string;
  /** How to fix it, for invalid rows. */
  fix?: string;
  /** For `duplicate`: the line of the first row with the address. */
  duplicateOf?: number;
}

/** A row as it is (or would be) sent to `POST /api/subscribers`. */
interface ImportRow {
  line: number;
  email: string;
  name: string;
  /** `YYYY-MM-DD`, always sent. */
  verified_at: string;
}

/** A row the service added. */
interface AddedRow extends ImportRow {
  batch: number;
  /** True when the batch's answer was lost and the list showed the row added. */
  confirmedByList?: boolean;
}

/** A row of a batch that failed. */
interface FailedRow extends ImportRow {
  batch: number;
  code: ErrorCode;
  message: string;
}

/** A row that was not sent: `deferred` (budget spent), `not-sent` (after a failure) or `interrupted` (the run was told to stop). */
interface NotSentRow extends ImportRow {
  batch: number;
  reason: Exclude<BatchStatus, 'done' | 'failed'>;
}

/** One batch of the import. */
export interface ImportBatchSummary {
  /** 1-based. */
  index: number;
  firstLine: number;
  lastLine: number;
  size: number;
  /** `planned` in a dry run (or `deferred` when beyond the day's budget). */
  status: BatchStatus | 'planned';
  added: number;
  /** Rows the service did not add (already subscribers). */
  skipped: number;
  error?: { code: ErrorCode; message: string };
}

/** The result of {@link importSubscribers}. */
export interface ImportResult {
  file: string;
  dryRun: boolean;
  delimiter: string;
  /** Headers of the columns used. */
  columns: { [Role in keyof SubscriberColumns]: string };
  /** The `--verified-at` date applied to rows without their own, if given. */
  verifiedAt?: string;
  /** Rows in the file (not counting the header and blank rows). */
  rows: number;
  blankRows: number;
  batchSize: number;
  batches: ImportBatchSummary[];
  added: AddedRow[];
  skipped: SkippedRow[];
  failed: FailedRow[];
  notSent: NotSentRow[];
  /** Requests this import made (a dry run: the `GET`). */
  requests: number;
  /** Requests left in the day's budget at the end. */
  dayRemaining: number;
}

/** Options of {@link importSubscribers}. */
export interface ImportOptions {
  client: ChangelogClient;
  csv: SubscriberCsv;
  /** `YYYY-MM-DD` for rows without their own verification date (the `--verified-at` option, parsed). */
  verifiedAt?: string | undefined;
  /** Subscribers per request. Default: see {@link defaultBatchSize}. */
  batchSize?: number | undefined;
  /** Read the list and plan; send nothing that changes anything. */
  dryRun?: boolean | undefined;
  /** `YYYY-MM-DD` (UTC). Default: today. */
  today?: string;
  /** Told about each batch as soon as its outcome is known. */
  onBatch?: (batch: ImportBatchSummary, total: number) => void;
  /** The state directory, where each batch's progress is recorded for a rerun (`import-progress.ts`); none without it. */
  stateDir?: string;
  /**
   * Once aborted (SIGTERM, Ctrl-C), no further batch is sent: the batch in flight finishes,
   * and the result accounts for every row (the rest `interrupted`).
   */
  signal?: AbortSignal;
}

/**
 * Decides row by row, without a request, what to send: field count, address, duplicates in the
 * file and against `existing`, the date, and the consent rule.
 * @param options.today `YYYY-MM-DD` (UTC), the latest acceptable verification date.
 * @public Used by `bench/scenarios/subscribers-import.mjs`, through `dist/`, which knip does not map back to `src/`.
 */
export function planImport(csv: SubscriberCsv, existing: readonly Subscriber[], options: { verifiedAt?: string | undefined; today: string }): { toSend: ImportRow[]; skipped: SkippedRow[] } {
  const known = new Set(existing.map((s) => emailKey(s.email)));
  const firstLine = new Map<string, number>();
  const toSend: ImportRow[] = [];
  const skipped: SkippedRow[] = [];
  const emailHeader = csv.columns.email.header;
  const verifiedHeader = csv.columns.verified?.header;
  for (const row of csv.rows) {
    const raw = row.email.trim();
    const skip = (email: string, reason: SkipReason, message: string, more?: Pick<SkippedRow, 'field' | 'fix' | 'duplicateOf'>) => skipped.push({ line: row.line, email, reason, message, ...more });
    if (row.extraFields > 0) {
      skip(raw, 'too-many-fields', `the row has ${csv.header.length + row.extraFields} fields, the header ${csv.header.length}`, {
        field: emailHeader,
        fix: `a value that contains the delimiter ("${csv.delimiter}") must be in double quotes`,
      });
      continue;
    }
    const email = normalizeEmail(row.email);
    if (!email.ok) {
      const missing = email.reason === 'missing-email';
      skip(raw, email.reason, missing ? 'no email address' : `${JSON.stringify(raw)} is not a valid email address`, {
        field: emailHeader,
        fix: missing ? 'fill in the address or delete the row' : 'correct the address or delete the row',
      });
      continue;
    }
    const key = emailKey(email.email);
    const first = firstLine.get(key);
    if (first !== undefined) {
      skip(email.email, 'duplicate', `the same address as line ${first}`, { duplicateOf: first });
      continue;
    }
    firstLine.set(key, row.line);
    if (known.has(key)) {
      skip(email.email, 'exists', 'already a subscriber');
      continue;
    }
    let date: string | undefined;
    const cell = row.verified?.trim() ?? '';
    if (verifiedHeader !== undefined && cell !== '') {
      const check = normalizeDate(cell, options.today);
      if (!check.ok) {
        skip(email.email, 'invalid-date', check.message, {
          field: verifiedHeader,
          fix: 'write the date as YYYY-MM-DD (or an ISO 8601 date and time), or empty the cell and pass --verified-at',
        });
        continue;
      }
      date = check.date;
    }
    date ??= options.verifiedAt;
    if (date === undefined) {
      skip(email.email, 'no-verification-date', CONSENT_MESSAGE, { field: verifiedHeader ?? 'verified_at', fix: consentFix(csv) });
      continue;
    }
    toSend.push({ line: row.line, email: email.email, name: row.name, verified_at: date });
  }
  return { toSend, skipped };
}

/** Why a row without a verification date is refused. */
export const CONSENT_MESSAGE =
  'no verification date: the service records a subscriber sent without verified_at as verified today, which would declare that this person confirmed a subscription they may never have confirmed';

function consentFix(csv: SubscriberCsv): string {
  if (csv.columns.verified) {
    return `fill in the "${csv.columns.verified.header}" cell, or pass --verified-at YYYY-MM-DD|today to declare the date of rows without one (only if they did confirm)`;
  }
  const candidate = csv.dateColumns[0];
  if (candidate !== undefined) {
    return `if the column "${candidate}" records when each person confirmed, pass --verified-column "${candidate}"; otherwise pass --verified-at YYYY-MM-DD|today to declare the date yourself (only if they did confirm)`;
  }
  return 'pass --verified-at YYYY-MM-DD|today to declare when these people confirmed (only if they did), or add a column with each confirmation date and pass --verified-column COLUMN';
}

/**
 * Imports a parsed subscriber file: one `GET`, {@link planImport}, then `POST /api/subscribers`
 * batch by batch through the rate budget (nothing in a dry run), the rest deferred past the day's
 * budget. After a lost answer one more `GET` finds which rows were added.
 * @throws {ChangelogSyncError} when the first `GET` fails (nothing sent); batch failures are in the result.
 */
export async function importSubscribers(options: ImportOptions): Promise<ImportResult> {
  const { client, csv } = options;
  const today = options.today ?? utcToday();
  const sentBefore = client.budget.sent;
  const existing = await client.listSubscribers();
  const plan = planImport(csv, existing, { verifiedAt: options.verifiedAt, today });
  const progress = options.stateDir ? await ImportProgress.open(options.stateDir, csv.rows) : undefined;
  progress?.markEarlier(plan.skipped);
  // One request stays in reserve for the check after a lost answer.
  const requestsLeft = client.budget.dayRemaining() - 1;
  const batchSize = options.batchSize ?? defaultBatchSize(plan.toSend.length, requestsLeft);
  const batches = toBatches(plan.toSend, batchSize);

  const added: AddedRow[] = [];
  const skipped = [...plan.skipped];
  const failed: FailedRow[] = [];
  const notSent: NotSentRow[] = [];
  const summaries: ImportBatchSummary[] = [];

  if (options.dryRun) {
    batches.forEach((items, i) => {
      const fits = i < client.budget.dayRemaining();
      summaries.push({ ...span(items, i + 1), status: fits ? 'planned' : 'deferred', added: 0, skipped: 0 });
      if (!fits) notSent.push(...items.map((r) => ({ ...r, batch: i + 1, reason: 'deferred' as const })));
    });
  } else {
    let sent = 0;
    const addBatch = (items: ImportRow[]) => client.addSubscribers(items.map((r) => ({ name: r.name, email: r.email, verified_at: r.verified_at })));
    const runs = await runBatches(
      batches,
      (items) => (progress ? progress.track(++sent, items, () => addBatch(items), (answer) => answer.map((s) => s.email)) : addBatch(items)),
      (run, total) => {
        const summary = summarize(run, added, skipped, failed, notSent);
        summaries.push(summary);
        options.onBatch?.(summary, total);
      },
      options.signal,
    );
    // After a lost answer, one more `GET` tells which rows were added; the others stay failed, now known not added.
    const confirmed = await settleLostBatches(runs, () => client.listSubscribers(), failed, {
      done: (listed) => listed,
      notDone: '; checked: it is not on the service',
      unknown: '; the service may have added it: run the same import again (rows already added are skipped)',
    });
    for (const { line, email, name, verified_at, batch } of confirmed) {
      added.push({ line, email, name, verified_at, batch, confirmedByList: true });
      summaries.find((s) => s.index === batch)!.added++;
    }
    if (runs.every((r) => r.status === 'done')) await progress?.finish();
  }

  added.sort((a, b) => a.line - b.line);
  skipped.sort((a, b) => a.line - b.line);
  return {
    file: csv.file,
    dryRun: options.dryRun ?? false,
    delimiter: csv.delimiter,
    columns: Object.fromEntries(Object.entries(csv.columns).map(([role, c]: [string, CsvColumn]) => [role, c.header])) as ImportResult['columns'],
    ...(options.verifiedAt !== undefined ? { verifiedAt: options.verifiedAt } : {}),
    rows: csv.rows.length,
    blankRows: csv.blankRows,
    batchSize,
    batches: summaries,
    added,
    skipped,
    failed,
    notSent,
    requests: client.budget.sent - sentBefore,
    dayRemaining: client.budget.dayRemaining(),
  };
}

function span(items: ImportRow[], index: number): Pick<ImportBatchSummary, 'index' | 'firstLine' | 'lastLine' | 'size'> {
  return { index, firstLine: items[0]?.line ?? 0, lastLine: items[items.length - 1]?.line ?? 0, size: items.length };
}

/** Files the rows of one batch run into the result lists and summarises the batch. */
function summarize(
  run: BatchRun<ImportRow, Subscriber[]>,
  added: AddedRow[],
  skipped: SkippedRow[],
  failed: FailedRow[],
  notSent: NotSentRow[],
): ImportBatchSummary {
  const summary: ImportBatchSummary = { ...span(run.items, run.index), status: run.status, added: 0, skipped: 0 };
  if (run.status === 'done') {
    const answered = new Set((run.result ?? []).map((s) => emailKey(s.email)));
    for (const row of run.items) {
      if (answered.has(emailKey(row.email))) {
        added.push({ ...row, batch: run.index });
        summary.added++;
      } else {
        skipped.push({ line: row.line, email: row.email, reason: 'exists', message: 'the service did not add it: already a subscriber (added since the list was read?)' });
        summary.skipped++;
      }
    }
  } else if (run.status === 'failed') {
    const { code, message } = run.error!;
    failed.push(...run.items.map((r) => ({ ...r, batch: run.index, code, message })));
  } else notSent.push(...run.items.map((r) => ({ ...r, batch: run.index, reason: run.status as NotSentRow['reason'] })));
  if (run.error) summary.error = { code: run.error.code, message: run.error.message };
  return summary;
}
