/**
 * `changelog-sync subscribers import FILE.csv`, run and reported (the work: `src/subscribers/import.ts`).
 * In GitHub Actions every address is masked (`subscribers/privacy.ts`), the job summary counts only.
 */
import type { Config } from '../../core/config.js';
import { EXIT, worstExit, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { readSubscriberCsv } from '../../subscribers/csv-read.js';
import { INVALID_REASONS, importSubscribers, type ImportBatchSummary, type ImportResult, type SkipReason, type SkippedRow } from '../../subscribers/import.js';
import { emailDisplay, withMaskedErrors, type EmailDisplay } from '../../subscribers/privacy.js';
import { parseVerifiedAtOption, utcToday } from '../../subscribers/validate.js';
import { withContext } from '../context.js';
import { listenForStop } from '../stop-signals.js';
import { batchOutcome, cap, countsMarkdown, HUMAN_ROWS, plural, printable, section } from './report.js';

const REASON_LABEL: Record<SkipReason, string> = {
  duplicate: 'duplicate in the file',
  exists: 'already a subscriber',
  'added-earlier': 'added by an earlier run that was stopped',
  'missing-email': 'no email address',
  'invalid-email': 'invalid email address',
  'too-many-fields': 'too many fields',
  'invalid-date': 'invalid verification date',
  'no-verification-date': 'refused by the consent rule',
};

/** Human lines of skipped rows, grouped by reason: each message and fix once per group when shared. */
function formatSkipped(skipped: readonly SkippedRow[], display: EmailDisplay, limit = HUMAN_ROWS): string[] {
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

/**
 * "3 skipped (2 invalid, 1 duplicate or already subscribed)": how many rows were skipped and why, in one
 * parenthesis (invalid rows are the file's to fix; the others are harmless).
 */
function skippedWords(skipped: readonly SkippedRow[]): string {
  const invalid = skipped.filter((s) => INVALID_REASONS.has(s.reason)).length;
  const there = skipped.length - invalid;
  const why = [invalid ? `${invalid.toLocaleString('en-US')} invalid` : '', there ? `${there.toLocaleString('en-US')} duplicate or already subscribed` : ''].filter(Boolean);
  return `${skipped.length.toLocaleString('en-US')} skipped${why.length ? ` (${why.join(', ')})` : ''}`;
}

/** Human summary of an import (or of its plan, in a dry run). */
export function formatImport(r: ImportResult, display: EmailDisplay): string {
  const lines: string[] = [];
  const planned = r.batches.filter((b) => b.status === 'planned');
  const plannedRows = planned.reduce((n, b) => n + b.size, 0);
  if (r.dryRun) {
    lines.push(
      `Plan: import ${r.file}, ${plural(r.rows, 'row')}: ${plural(plannedRows, 'subscriber')} to add in ${plural(planned.length, 'batch', 'batches')} of up to ${r.batchSize}, ${skippedWords(r.skipped)}${r.notSent.length ? `, ${r.notSent.length} deferred (beyond the day's budget)` : ''}; nothing sent`,
    );
    lines.push(`  requests: 1 GET made, ${plural(planned.length, 'POST')} to send; ${r.dayRemaining.toLocaleString('en-US')} left today`);
    lines.push(...cap(planned, 20, (b) => `  batch ${b.index}: lines ${b.firstLine}-${b.lastLine} (${plural(b.size, 'row')})`, '  '));
  } else {
    lines.push(
      `Imported ${r.file}, ${plural(r.rows, 'row')}: ${plural(r.added.length, 'subscriber')} added, ${skippedWords(r.skipped)}, ${r.failed.length.toLocaleString('en-US')} failed${r.notSent.length ? `, ${r.notSent.length.toLocaleString('en-US')} not sent` : ''} (${plural(r.batches.length, 'batch', 'batches')} of up to ${r.batchSize}; ${plural(r.requests, 'request')}, ${r.dayRemaining.toLocaleString('en-US')} left today)`,
    );
  }
  lines.push(`  columns: email "${r.columns.email}"${r.columns.name ? `, name "${r.columns.name}"` : r.columns.firstName || r.columns.lastName ? `, name "${[r.columns.firstName, r.columns.lastName].filter(Boolean).join('" + "')}"` : ''}${r.columns.verified ? `, verified_at "${r.columns.verified}"` : ''}; delimiter "${r.delimiter}"${r.verifiedAt ? `; --verified-at ${r.verifiedAt}` : ''}`);
  lines.push(...section('Added', r.added, (a) => `  line ${a.line}  ${printable(display.email(a.email))}  ${printable(a.name) || '(no name)'}  verified_at ${a.verified_at}${a.confirmedByList ? '  (answer lost; found in the list)' : ''}`, '', 50));
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
    const interrupted = notSent.filter((n) => n.reason === 'interrupted').length;
    const afterFailure = notSent.length - deferred - interrupted;
    lines.push(
      `Not sent (${notSent.length.toLocaleString('en-US')}): ${deferred ? `${deferred.toLocaleString('en-US')} deferred: the day's request budget is spent; ` : ''}${afterFailure ? `${afterFailure.toLocaleString('en-US')} after a failed batch; ` : ''}${interrupted ? `${interrupted.toLocaleString('en-US')} after the run was told to stop (SIGTERM or Ctrl-C); ` : ''}run the same import again: rows already added are skipped`,
    );
    lines.push(...cap(notSent, 20, (n) => `  line ${n.line}  ${printable(display.email(n.email))}`, '  '));
  }
  return lines.join('\n');
}

/** The job summary of an import (GitHub Actions `$GITHUB_STEP_SUMMARY`): counts only. */
export function importSummaryMarkdown(r: ImportResult): string {
  const skipped = (reasons: SkipReason[]) => r.skipped.filter((s) => reasons.includes(s.reason)).length;
  return countsMarkdown(`subscribers import${r.dryRun ? ' (dry run)' : ''}`, [
    ['rows', r.rows],
    [r.dryRun ? 'to add' : 'added', r.dryRun ? r.batches.filter((b) => b.status === 'planned').reduce((n, b) => n + b.size, 0) : r.added.length],
    ['skipped: duplicates and existing subscribers', skipped(['duplicate', 'exists', 'added-earlier'])],
    ['skipped: invalid rows', r.skipped.filter((s) => INVALID_REASONS.has(s.reason) && s.reason !== 'no-verification-date').length],
    ['refused: no verification date (consent)', skipped(['no-verification-date'])],
    ['failed', r.failed.length],
    ['not sent (deferred or after a failure)', r.notSent.length],
    ['requests left today', r.dayRemaining],
  ]);
}

/** One line per batch, for progress on stderr. */
export function formatImportBatch(b: ImportBatchSummary, total: number): string {
  const done = `${b.added} added${b.skipped ? `, ${b.skipped} already subscribed` : ''}`;
  return `batch ${b.index}/${total} (lines ${b.firstLine}-${b.lastLine}, ${plural(b.size, 'row')}): ${batchOutcome(b, done)}`;
}

/** Exit code of an import: failed > invalid rows > deferred > ok. */
export function importExitCode(r: ImportResult): ExitCode {
  return worstExit([
    r.failed.length > 0 || r.notSent.some((n) => n.reason === 'not-sent' || n.reason === 'interrupted') ? EXIT.ERROR : EXIT.OK,
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
  return withMaskedErrors(display, async () => {
    const today = utcToday();
    const verifiedAt = options.verifiedAt === undefined ? undefined : parseVerifiedAtOption(options.verifiedAt, today);
    const csv = await readSubscriberCsv(options.file, { verifiedColumn: options.verifiedColumn, cwd: config.cwd });
    return withContext(config, reporter, { dryRun: options.dryRun }, async (client) => {
      reporter.info(`${options.dryRun ? 'Planning the import of' : 'Importing'} ${plural(csv.rows.length, 'row')} from ${options.file} into ${config.baseUrl} ...`);
      const bar = reporter.counter('import');
      // SIGTERM (a cancelled job) or Ctrl-C: finish the batch in flight, send no other, report every row, exit 143 or 130.
      const stop = options.dryRun ? undefined : listenForStop(reporter, 'the batch in flight finishes, no other is sent; the report below accounts for every row');
      const result = await importSubscribers({
        signal: stop?.signal,
        stateDir: config.stateDir,
        client,
        csv,
        verifiedAt,
        batchSize: options.batchSize,
        dryRun: options.dryRun,
        today,
        onBatch: (b, total) => {
          bar.update(b.index, total);
          bar.line(display.text(formatImportBatch(b, total)));
        },
      }).finally(() => {
        bar.stop();
        stop?.dispose();
      });
      reporter.summary(importSummaryMarkdown(result));
      reporter.result(display.text(formatImport(result, display)), display.data({ command: 'subscribers import', ...result, masked: display.masked }));
      return importExitCode(result);
    });
  });
}
