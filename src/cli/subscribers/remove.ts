/**
 * `changelog-sync subscribers remove EMAIL... | --file FILE.csv`, run and reported (the work:
 * `src/subscribers/remove.ts`), addresses masked in GitHub Actions, the job summary counts only.
 */
import { ChangelogSyncError } from '../../core/errors.js';
import type { Config } from '../../core/config.js';
import { EXIT, worstExit, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { readSubscriberCsv } from '../../subscribers/csv-read.js';
import { emailDisplay, withMaskedErrors, type EmailDisplay } from '../../subscribers/privacy.js';
import { removeSubscribers, targetsFromArguments, targetsFromCsv, where, type RemoveBatchSummary, type RemoveResult } from '../../subscribers/remove.js';
import { withContext } from '../context.js';
import { listenForStop } from '../stop-signals.js';
import { batchOutcome, countsMarkdown, plural, printable, section } from './report.js';

/** Human summary of a removal (or of its plan). */
export function formatRemove(r: RemoveResult, display: EmailDisplay): string {
  const asked = r.removed.length + r.notFound.length + r.failed.length;
  const lines = [
    r.dryRun
      ? `Plan: remove ${plural(r.removed.length, 'subscriber')} of ${asked.toLocaleString('en-US')} asked for (${r.notFound.length.toLocaleString('en-US')} not subscribed) in ${plural(r.batches.length, 'batch', 'batches')}; nothing sent`
      : `Removed ${plural(r.removed.length, 'subscriber')} of ${asked.toLocaleString('en-US')} asked for: ${r.notFound.length.toLocaleString('en-US')} not found, ${r.failed.length.toLocaleString('en-US')} failed (${plural(r.batches.length, 'batch', 'batches')}; ${plural(r.requests, 'request')}, ${r.dayRemaining.toLocaleString('en-US')} left today)`,
  ];
  const show = (t: { email: string; line?: number; argument?: number }) => `${printable(display.email(t.email))} (${where(t)})`;
  lines.push(...section(r.dryRun ? 'Would remove' : 'Removed', r.removed, (t) => `  - ${show(t)}${t.confirmedByList ? ' (answer lost; the list checked afterwards no longer has it)' : ''}`));
  lines.push(...section('Not found', r.notFound, (t) => `  ? ${show(t)}`, r.dryRun ? 'not in the subscriber list' : "asked for, not in the service's answer"));
  lines.push(...section('Skipped', r.skipped, (t) => `  ${where(t)}  ${printable(display.email(t.email)) || '(empty)'}: ${printable(t.reason === 'duplicate' ? t.message : t.message.replace(/^".*" is/, 'is'))}`, 'not sent'));
  lines.push(...section('Failed', r.failed, (t) => `  x ${show(t)}: batch ${t.batch}: ${t.code ? `${t.code}: ` : ''}${printable(t.message)}`));
  return lines.join('\n');
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
function formatRemoveBatch(b: RemoveBatchSummary, total: number): string {
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
  return withMaskedErrors(display, async () => {
    if (options.file !== undefined && options.emails.length > 0) {
      throw new ChangelogSyncError('E_USAGE', 'give addresses or --file, not both', { hint: 'subscribers remove EMAIL... or subscribers remove --file FILE.csv' });
    }
    if (options.file === undefined && options.emails.length === 0) {
      throw new ChangelogSyncError('E_USAGE', 'no address to remove', { hint: 'subscribers remove EMAIL... or subscribers remove --file FILE.csv' });
    }
    const targets = options.file !== undefined ? targetsFromCsv(await readSubscriberCsv(options.file, { cwd: config.cwd })) : targetsFromArguments(options.emails);
    return withContext(config, reporter, { dryRun: options.dryRun }, async (client) => {
      reporter.info(`${options.dryRun ? 'Planning the removal of' : 'Removing'} ${plural(targets.targets.length, 'address', 'addresses')} from ${config.baseUrl} ...`);
      const bar = reporter.counter('remove');
      // SIGTERM (a cancelled job) or Ctrl-C: finish the batch in flight, send no other, report every address, exit 143 or 130.
      const stop = options.dryRun ? undefined : listenForStop(reporter, 'the batch in flight finishes, no other is sent; the report below accounts for every address');
      const result = await removeSubscribers({
        signal: stop?.signal,
        client,
        targets,
        batchSize: options.batchSize,
        dryRun: options.dryRun,
        onBatch: (b, total) => {
          bar.update(b.index, total);
          bar.line(display.text(formatRemoveBatch(b, total)));
        },
      }).finally(() => {
        bar.stop();
        stop?.dispose();
      });
      reporter.summary(removeSummaryMarkdown(result));
      reporter.result(display.text(formatRemove(result, display)), display.data({ command: 'subscribers remove', ...result, masked: display.masked }));
      return removeExitCode(result);
    });
  });
}
