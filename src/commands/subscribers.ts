/**
 * `changelog-sync subscribers list|import|remove|export` (issue 5). Each function parses
 * nothing and holds no logic a test cannot call: the work is in `src/subscribers/`; here
 * it is run against the configured service and reported.
 *
 * Subscriber data stays out of CI logs: in GitHub Actions every address these commands
 * print is masked (see `subscribers/privacy.ts`), `export` refuses stdout there, and the
 * job summary holds counts only.
 *
 * @module
 */
import { ChangelogSyncError } from '../errors.js';
import type { Config } from '../config.js';
import { EXIT, worstExit, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { readSubscriberCsv } from '../subscribers/csv-read.js';
import { subscribersToCsv } from '../subscribers/csv-write.js';
import { exportSubscribers, type ProtectedDir } from '../subscribers/export.js';
import { INVALID_REASONS, importSubscribers, type ImportBatchSummary, type ImportResult, type SkipReason, type SkippedRow } from '../subscribers/import.js';
import { listSubscribers, type SubscriberList } from '../subscribers/list.js';
import { emailDisplay, type EmailDisplay } from '../subscribers/privacy.js';
import { removeSubscribers, targetsFromArguments, targetsFromCsv, where, type RemoveBatchSummary, type RemoveResult } from '../subscribers/remove.js';
import { parseVerifiedAtOption, utcToday } from '../subscribers/validate.js';
import { openContext } from './context.js';

/** Rows listed per group in human output; `--json` lists every row. */
const HUMAN_ROWS = 100;

/** A cell made safe for a terminal: control characters (line breaks, escape sequences) become spaces. */
function printable(value: string): string {
  return value.replace(/\p{Cc}+/gu, ' ');
}

/**
 * Runs a command body with addresses masked in every error it throws, when the
 * display masks (GitHub Actions).
 */
async function guarded(display: EmailDisplay, body: () => Promise<ExitCode>): Promise<ExitCode> {
  try {
    return await body();
  } catch (err) {
    if (display.masked && err instanceof ChangelogSyncError) {
      err.message = display.text(err.message);
      Object.assign(err, { hint: err.hint === undefined ? undefined : display.text(err.hint) });
    }
    throw err;
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

function cap<T>(rows: readonly T[], limit: number, line: (row: T) => string, indent: string): string[] {
  const out = rows.slice(0, limit).map(line);
  if (rows.length > limit) out.push(`${indent}… and ${(rows.length - limit).toLocaleString('en-US')} more (--json lists every row)`);
  return out;
}

// ---------------------------------------------------------------------------- list

/** Human table of a subscriber list. */
export function formatList(list: SubscriberList, display: EmailDisplay): string {
  const lines = [`${plural(list.count, 'subscriber')} (${list.verified.toLocaleString('en-US')} verified, ${list.unverified.toLocaleString('en-US')} unverified)`];
  if (list.count === 0) return lines[0]!;
  const rows = list.subscribers.map((s) => [printable(display.email(s.email)), printable(s.name ?? ''), s.verified_at?.slice(0, 10) ?? 'unverified', s.created_at?.slice(0, 10) ?? '']);
  const head = ['email', 'name', 'verified', 'created'];
  const widths = head.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const row = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  lines.push(row(head), ...rows.map(row));
  return lines.join('\n');
}

/**
 * `subscribers list [--json | --csv]`: every subscriber (email, name, verified_at,
 * created_at) as a table, one JSON document (global `--json`) or CSV.
 */
export async function subscribersListCommand(config: Config, reporter: Reporter, options: { csv?: boolean } = {}): Promise<ExitCode> {
  const display = emailDisplay(reporter.actions);
  return guarded(display, async () => {
    if (options.csv && reporter.json) throw new ChangelogSyncError('E_USAGE', '--csv and --json exclude each other', { hint: 'pass one of them' });
    const ctx = await openContext(config, reporter);
    try {
      const list = await listSubscribers(ctx.client);
      if (options.csv) reporter.result(subscribersToCsv(list.subscribers, { email: display.email }).replace(/\n$/, ''), undefined);
      else reporter.result(display.text(formatList(list, display)), display.data({ command: 'subscribers list', ...list, masked: display.masked }));
      return EXIT.OK;
    } finally {
      await ctx.close();
    }
  });
}

// -------------------------------------------------------------------------- import

const REASON_LABEL: Record<SkipReason, string> = {
  duplicate: 'duplicate in the file',
  exists: 'already a subscriber',
  'missing-email': 'no email address',
  'invalid-email': 'invalid email address',
  'too-many-fields': 'too many fields',
  'invalid-date': 'invalid verification date',
  'no-verification-date': 'refused by the consent rule',
};

/** Human lines of skipped rows, grouped by reason: each message and fix once per group when shared. */
export function formatSkipped(skipped: readonly SkippedRow[], display: EmailDisplay, limit = HUMAN_ROWS): string[] {
  const lines: string[] = [];
  const reasons = [...new Set(skipped.map((s) => s.reason))];
  for (const reason of reasons) {
    const rows = skipped.filter((s) => s.reason === reason);
    const sharedMessage = rows.every((r) => r.message === rows[0]!.message) ? rows[0]!.message : undefined;
    const field = rows[0]!.field;
    const column = field && INVALID_REASONS.has(reason) && reason !== 'no-verification-date' ? ` (column "${field}")` : '';
    const shown = sharedMessage && sharedMessage !== REASON_LABEL[reason] && reason !== 'invalid-email' ? `: ${sharedMessage}` : '';
    lines.push(`  ${REASON_LABEL[reason]}${column}: ${plural(rows.length, 'row')}${shown}`);
    if (rows[0]!.fix) lines.push(`    fix: ${rows[0]!.fix}`);
    lines.push(
      ...cap(
        rows,
        limit,
        (r) => `    line ${r.line}  ${printable(display.email(r.email)) || '(empty)'}${sharedMessage ? '' : `: ${printable(r.message)}`}`,
        '    ',
      ),
    );
  }
  return lines;
}

/** Human summary of an import (or of its plan, in a dry run). */
export function formatImport(r: ImportResult, display: EmailDisplay): string {
  const lines: string[] = [];
  const invalid = r.skipped.filter((s) => INVALID_REASONS.has(s.reason)).length;
  const planned = r.batches.filter((b) => b.status === 'planned');
  const plannedRows = planned.reduce((n, b) => n + b.size, 0);
  if (r.dryRun) {
    lines.push(
      `Plan: import ${r.file}: ${plural(plannedRows, 'subscriber')} to add in ${plural(planned.length, 'batch', 'batches')} of up to ${r.batchSize}, ${plural(r.skipped.length, 'row')} skipped${invalid ? ` (${invalid} invalid)` : ''}${r.notSent.length ? `, ${r.notSent.length} deferred (beyond the day's budget)` : ''} (${plural(r.rows, 'row')}); nothing sent`,
    );
    lines.push(`  requests: 1 GET made, ${plural(planned.length, 'POST')} to send; ${r.dayRemaining.toLocaleString('en-US')} left today`);
    lines.push(...cap(planned, 20, (b) => `  batch ${b.index}: lines ${b.firstLine}-${b.lastLine} (${plural(b.size, 'row')})`, '  '));
  } else {
    lines.push(
      `Imported ${r.file}: ${plural(r.added.length, 'subscriber')} added, ${r.skipped.length.toLocaleString('en-US')} skipped${invalid ? ` (${invalid} invalid)` : ''}, ${r.failed.length.toLocaleString('en-US')} failed${r.notSent.length ? `, ${r.notSent.length.toLocaleString('en-US')} not sent` : ''} (${plural(r.rows, 'row')}, ${plural(r.batches.length, 'batch', 'batches')} of up to ${r.batchSize}; ${plural(r.requests, 'request')}, ${r.dayRemaining.toLocaleString('en-US')} left today)`,
    );
  }
  lines.push(`  columns: email "${r.columns.email}"${r.columns.name ? `, name "${r.columns.name}"` : r.columns.firstName || r.columns.lastName ? `, name "${[r.columns.firstName, r.columns.lastName].filter(Boolean).join('" + "')}"` : ''}${r.columns.verified ? `, verified_at "${r.columns.verified}"` : ''}; delimiter "${r.delimiter}"${r.verifiedAt ? `; --verified-at ${r.verifiedAt}` : ''}`);
  if (r.added.length) {
    lines.push(`Added (${r.added.length.toLocaleString('en-US')}):`);
    lines.push(...cap(r.added, 50, (a) => `  line ${a.line}  ${printable(display.email(a.email))}  ${printable(a.name) || '(no name)'}  verified_at ${a.verified_at}${a.confirmedByList ? '  (answer lost; found in the list)' : ''}`, '  '));
  }
  if (r.skipped.length) {
    lines.push(`Skipped (${r.skipped.length.toLocaleString('en-US')}):`);
    lines.push(...formatSkipped(r.skipped, display));
  }
  if (r.failed.length) {
    lines.push(`Failed (${r.failed.length.toLocaleString('en-US')}):`);
    for (const b of r.batches.filter((x) => x.status === 'failed')) {
      const rows = r.failed.filter((f) => f.batch === b.index);
      if (rows.length === 0) continue;
      lines.push(`  batch ${b.index} (lines ${b.firstLine}-${b.lastLine}): ${b.error?.code}: ${printable(b.error?.message ?? '')}`);
      lines.push(...cap(rows, HUMAN_ROWS, (f) => `    line ${f.line}  ${printable(display.email(f.email))}${f.message !== b.error?.message ? `: ${printable(f.message.slice((b.error?.message ?? '').length).replace(/^; /, ''))}` : ''}`, '    '));
    }
  }
  const notSent = r.notSent.filter(() => !r.dryRun);
  if (notSent.length) {
    const deferred = notSent.filter((n) => n.reason === 'deferred').length;
    lines.push(
      `Not sent (${notSent.length.toLocaleString('en-US')}): ${deferred ? `${deferred.toLocaleString('en-US')} deferred: the day's request budget is spent; ` : ''}${notSent.length - deferred ? `${(notSent.length - deferred).toLocaleString('en-US')} after a failed batch; ` : ''}run the same import again: rows already added are skipped`,
    );
    lines.push(...cap(notSent, 20, (n) => `  line ${n.line}  ${printable(display.email(n.email))}`, '  '));
  }
  return lines.join('\n');
}

/** A Markdown table of counts (no addresses: the job summary is as public as the log). */
function countsMarkdown(title: string, rows: Array<[string, number]>): string {
  return [`### changelog-sync ${title}`, '', '| | |', '|---|---:|', ...rows.map(([k, v]) => `| ${k} | ${v} |`), ''].join('\n');
}

/** The job summary of an import (GitHub Actions `$GITHUB_STEP_SUMMARY`): counts only. */
export function importSummaryMarkdown(r: ImportResult): string {
  const skipped = (reasons: SkipReason[]) => r.skipped.filter((s) => reasons.includes(s.reason)).length;
  return countsMarkdown(`subscribers import${r.dryRun ? ' (dry run)' : ''}`, [
    ['rows', r.rows],
    [r.dryRun ? 'to add' : 'added', r.dryRun ? r.batches.filter((b) => b.status === 'planned').reduce((n, b) => n + b.size, 0) : r.added.length],
    ['skipped: duplicates and existing subscribers', skipped(['duplicate', 'exists'])],
    ['skipped: invalid rows', skipped(['missing-email', 'invalid-email', 'too-many-fields', 'invalid-date'])],
    ['refused: no verification date (consent)', skipped(['no-verification-date'])],
    ['failed', r.failed.length],
    ['not sent (deferred or after a failure)', r.notSent.length],
    ['requests left today', r.dayRemaining],
  ]);
}

/** The job summary of a removal: counts only. */
export function removeSummaryMarkdown(r: RemoveResult): string {
  return countsMarkdown(`subscribers remove${r.dryRun ? ' (dry run)' : ''}`, [
    [r.dryRun ? 'to remove' : 'removed', r.removed.length],
    ['not found', r.notFound.length],
    ['skipped input', r.skipped.length],
    ['failed or not sent', r.failed.length],
    ['requests left today', r.dayRemaining],
  ]);
}

/** One line per batch, for progress on stderr. */
export function formatImportBatch(b: ImportBatchSummary, total: number): string {
  const done = `${b.added} added${b.skipped ? `, ${b.skipped} already subscribed` : ''}`;
  return `batch ${b.index}/${total} (lines ${b.firstLine}-${b.lastLine}, ${plural(b.size, 'row')}): ${batchOutcome(b, done)}`;
}

/** What became of a batch that was not planned, in words; `done` says what a successful one did. */
function batchOutcome(b: { status: string; error?: { code: string; message: string } | undefined }, done: string): string {
  if (b.status === 'done') return done;
  if (b.status === 'failed') return `failed: ${b.error?.code}: ${b.error?.message}`;
  if (b.status === 'deferred') return "deferred: the day's request budget is spent";
  return 'not sent: an earlier batch failed';
}

/** Exit code of an import: failed > invalid rows > deferred > ok. */
export function importExitCode(r: ImportResult): ExitCode {
  return worstExit([
    r.failed.length > 0 || r.notSent.some((n) => n.reason === 'not-sent') ? EXIT.ERROR : EXIT.OK,
    r.skipped.some((s) => INVALID_REASONS.has(s.reason)) ? EXIT.INVALID : EXIT.OK,
    r.notSent.some((n) => n.reason === 'deferred') ? EXIT.DEFERRED : EXIT.OK,
  ]);
}

/** Options of {@link subscribersImportCommand}. */
export interface ImportCommandOptions {
  file: string;
  dryRun?: boolean | undefined;
  batchSize?: number | undefined;
  /** `today` or `YYYY-MM-DD`: the verification date of rows without one. */
  verifiedAt?: string | undefined;
  /** Header of the column with each row's verification date. */
  verifiedColumn?: string | undefined;
}

/**
 * `subscribers import FILE.csv [--dry-run] [--batch-size N] [--verified-column COLUMN]
 * [--verified-at today|YYYY-MM-DD]`. The file is read and checked before any request.
 */
export async function subscribersImportCommand(config: Config, reporter: Reporter, options: ImportCommandOptions): Promise<ExitCode> {
  const display = emailDisplay(reporter.actions);
  return guarded(display, async () => {
    const today = utcToday();
    const verifiedAt = options.verifiedAt === undefined ? undefined : parseVerifiedAtOption(options.verifiedAt, today);
    const csv = await readSubscriberCsv(options.file, { verifiedColumn: options.verifiedColumn });
    const ctx = await openContext(config, reporter);
    try {
      reporter.info(`${options.dryRun ? 'Planning the import of' : 'Importing'} ${plural(csv.rows.length, 'row')} from ${options.file} into ${config.baseUrl} ...`);
      const bar = reporter.counter('import');
      const result = await importSubscribers({
        client: ctx.client,
        csv,
        verifiedAt,
        batchSize: options.batchSize,
        dryRun: options.dryRun,
        today,
        onBatch: (b, total) => {
          bar.update(b.index, total);
          bar.line(display.text(formatImportBatch(b, total)));
        },
      }).finally(() => bar.stop());
      reporter.summary(importSummaryMarkdown(result));
      reporter.result(display.text(formatImport(result, display)), display.data({ command: 'subscribers import', ...result, masked: display.masked }));
      return importExitCode(result);
    } finally {
      await ctx.close();
    }
  });
}

// -------------------------------------------------------------------------- remove

/** Human summary of a removal (or of its plan). */
export function formatRemove(r: RemoveResult, display: EmailDisplay): string {
  const asked = r.removed.length + r.notFound.length + r.failed.length;
  const lines = [
    r.dryRun
      ? `Plan: remove ${plural(r.removed.length, 'subscriber')} of ${asked.toLocaleString('en-US')} asked for (${r.notFound.length.toLocaleString('en-US')} not subscribed) in ${plural(r.batches.length, 'batch', 'batches')}; nothing sent`
      : `Removed ${plural(r.removed.length, 'subscriber')} of ${asked.toLocaleString('en-US')} asked for: ${r.notFound.length.toLocaleString('en-US')} not found, ${r.failed.length.toLocaleString('en-US')} failed (${plural(r.batches.length, 'batch', 'batches')}; ${plural(r.requests, 'request')}, ${r.dayRemaining.toLocaleString('en-US')} left today)`,
  ];
  const show = (t: { email: string; line?: number; argument?: number }) => `${printable(display.email(t.email))} (${where(t)})`;
  if (r.removed.length) {
    lines.push(`${r.dryRun ? 'Would remove' : 'Removed'} (${r.removed.length.toLocaleString('en-US')}):`);
    lines.push(...cap(r.removed, HUMAN_ROWS, (t) => `  - ${show(t)}${t.confirmedByList ? ' (answer lost; the list checked afterwards no longer has it)' : ''}`, '  '));
  }
  if (r.notFound.length) {
    lines.push(`Not found (${r.notFound.length.toLocaleString('en-US')}): ${r.dryRun ? 'not in the subscriber list' : "asked for, not in the service's answer"}`);
    lines.push(...cap(r.notFound, HUMAN_ROWS, (t) => `  ? ${show(t)}`, '  '));
  }
  if (r.skipped.length) {
    lines.push(`Skipped (${r.skipped.length.toLocaleString('en-US')}): not sent`);
    lines.push(...cap(r.skipped, HUMAN_ROWS, (t) => `  ${where(t)}  ${printable(display.email(t.email)) || '(empty)'}: ${printable(t.reason === 'duplicate' ? t.message : t.message.replace(/^".*" is/, 'is'))}`, '  '));
  }
  if (r.failed.length) {
    lines.push(`Failed (${r.failed.length.toLocaleString('en-US')}):`);
    lines.push(...cap(r.failed, HUMAN_ROWS, (t) => `  x ${show(t)}: batch ${t.batch}: ${t.code ? `${t.code}: ` : ''}${printable(t.message)}`, '  '));
  }
  return lines.join('\n');
}

/** One line per batch, for progress on stderr. */
export function formatRemoveBatch(b: RemoveBatchSummary, total: number): string {
  return `batch ${b.index}/${total} (${plural(b.size, 'address', 'addresses')}): ${batchOutcome(b, `${b.removed} removed, ${b.notFound} not found`)}`;
}

/** Exit code of a removal: failed > invalid input > deferred > ok. "Not found" is not an error. */
export function removeExitCode(r: RemoveResult): ExitCode {
  return worstExit([
    r.failed.some((f) => f.status !== 'deferred') ? EXIT.ERROR : EXIT.OK,
    r.skipped.some((s) => s.reason !== 'duplicate') ? EXIT.INVALID : EXIT.OK,
    r.failed.some((f) => f.status === 'deferred') ? EXIT.DEFERRED : EXIT.OK,
  ]);
}

/** Options of {@link subscribersRemoveCommand}. */
export interface RemoveCommandOptions {
  emails: string[];
  file?: string | undefined;
  dryRun?: boolean | undefined;
  batchSize?: number | undefined;
}

/** `subscribers remove EMAIL... | --file FILE.csv [--dry-run] [--batch-size N]`. */
export async function subscribersRemoveCommand(config: Config, reporter: Reporter, options: RemoveCommandOptions): Promise<ExitCode> {
  const display = emailDisplay(reporter.actions);
  return guarded(display, async () => {
    if (options.file !== undefined && options.emails.length > 0) {
      throw new ChangelogSyncError('E_USAGE', 'give addresses or --file, not both', { hint: 'subscribers remove EMAIL... or subscribers remove --file FILE.csv' });
    }
    if (options.file === undefined && options.emails.length === 0) {
      throw new ChangelogSyncError('E_USAGE', 'no address to remove', { hint: 'subscribers remove EMAIL... or subscribers remove --file FILE.csv' });
    }
    const targets = options.file !== undefined ? targetsFromCsv(await readSubscriberCsv(options.file)) : targetsFromArguments(options.emails);
    const ctx = await openContext(config, reporter);
    try {
      reporter.info(`${options.dryRun ? 'Planning the removal of' : 'Removing'} ${plural(targets.targets.length, 'address', 'addresses')} from ${config.baseUrl} ...`);
      const bar = reporter.counter('remove');
      const result = await removeSubscribers({
        client: ctx.client,
        targets,
        batchSize: options.batchSize,
        dryRun: options.dryRun,
        onBatch: (b, total) => {
          bar.update(b.index, total);
          bar.line(display.text(formatRemoveBatch(b, total)));
        },
      }).finally(() => bar.stop());
      reporter.summary(removeSummaryMarkdown(result));
      reporter.result(display.text(formatRemove(result, display)), display.data({ command: 'subscribers remove', ...result, masked: display.masked }));
      return removeExitCode(result);
    } finally {
      await ctx.close();
    }
  });
}

// -------------------------------------------------------------------------- export

/** The directories an export must stay out of: what this tool commits or publishes. */
export function protectedDirs(config: Config): ProtectedDir[] {
  return [
    { dir: config.contentDir, what: 'the content directory (committed to git)' },
    { dir: config.stateDir, what: 'the state directory (committed to git)' },
    { dir: config.siteDir, what: 'the site templates (committed to git)' },
    { dir: config.outputDir, what: 'the built site (published)' },
  ];
}

/** `subscribers export [--out FILE.csv]`: CSV with a header row, formula-injection safe. */
export async function subscribersExportCommand(config: Config, reporter: Reporter, options: { out?: string | undefined } = {}): Promise<ExitCode> {
  const display = emailDisplay(reporter.actions);
  return guarded(display, async () => {
    if (options.out === undefined && display.masked) {
      throw new ChangelogSyncError('E_USAGE', 'in GitHub Actions stdout is the job log: subscriber addresses must not be written there', {
        field: '--out',
        hint: 'write the export to a file with --out FILE.csv (and keep the file out of artifacts and commits)',
      });
    }
    if (options.out === undefined && reporter.json) {
      throw new ChangelogSyncError('E_USAGE', 'export writes CSV: --json needs --out FILE.csv (or use subscribers list --json)', { hint: 'pass --out FILE.csv' });
    }
    const ctx = await openContext(config, reporter);
    try {
      const result = await exportSubscribers({ client: ctx.client, out: options.out, protectedDirs: protectedDirs(config) });
      if (result.csv !== undefined) reporter.result(result.csv.replace(/\n$/, ''), undefined);
      else {
        reporter.result(`Exported ${plural(result.count, 'subscriber')} to ${options.out} (CSV UTF-8 with a header row; readable by you only)`, {
          command: 'subscribers export',
          count: result.count,
          file: result.file,
        });
      }
      return EXIT.OK;
    } finally {
      await ctx.close();
    }
  });
}
