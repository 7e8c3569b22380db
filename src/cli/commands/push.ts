/**
 * `changelog-sync push [--dry-run]`.
 * @module
 */
import type { Config } from '../../core/config.js';
import { assertInsideProject } from '../../core/project-path.js';
import type { ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { openContext } from '../context.js';
import { formatPush, irrevocable, pushExitCode, pushWithProgress, reportRejected, withStoppedPushReport } from '../reports/push-report.js';

/**
 * Runs a push and reports it.
 * @returns see {@link pushExitCode}.
 * @throws {ChangelogSyncError} `E_OUTSIDE_PROJECT` (nothing sent) when a file is a symbolic link out of the project.
 */
export async function pushCommand(config: Config, reporter: Reporter, options: { dryRun?: boolean } = {}): Promise<ExitCode> {
  // Nothing is pushed from, or written into, a file outside the project.
  await assertInsideProject(config);
  const ctx = await openContext(config, reporter, { dryRun: options.dryRun });
  try {
    reporter.info(`Pushing new entries to ${config.baseUrl} ...`);
    // Only when something will be sent: a dry run creates nothing.
    if (!options.dryRun) reporter.info(irrevocable(config.root));
    const result = await pushWithProgress(ctx.client, config, reporter, options).catch((err: unknown) => {
      throw withStoppedPushReport(err, (r) => ({ command: 'push', ...r }));
    });
    reportRejected(reporter, config.contentDir, result.rejected);
    reporter.result(formatPush(result), { command: 'push', ...result });
    return pushExitCode(result);
  } finally {
    await ctx.close();
  }
}

