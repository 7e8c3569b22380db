/**
 * `changelog-sync push [--dry-run] [--no-lease]`.
 */
import type { Config } from '../../core/config.js';
import { assertInsideProject } from '../../core/project-path.js';
import type { ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { withContext } from '../context.js';
import { engineOptions, type PushCall } from '../../options/engine-options.js';
import { listenForStop } from '../stop-signals.js';
import { push } from '../../sync/push/push.js';
import { formatPush, irrevocable, NO_LEASE_WARNING, pushExitCode, pushProgress, reportRejected, withStoppedPushReport } from '../steps/push-step.js';

/** Options of {@link pushCommand}: `--dry-run`, `--no-lease`. */
export type PushCommandOptions = Pick<PushCall, 'dryRun' | 'noLease'>;

/**
 * Runs a push and reports it. SIGTERM and SIGINT stop it once the POSTs in flight settled
 * (`stop-signals.ts`: the CLI then ends by that signal).
 * @returns see {@link pushExitCode}.
 * @throws {ChangelogSyncError} `E_OUTSIDE_PROJECT` (nothing sent) when a file is a symbolic link
 *   out of the project; `E_LEASE` when `origin` cannot be read (without `--no-lease`).
 */
export async function pushCommand(config: Config, reporter: Reporter, options: PushCommandOptions = {}): Promise<ExitCode> {
  // Nothing is pushed from, or written into, a file outside the project.
  await assertInsideProject(config);
  if (options.noLease) reporter.warn(NO_LEASE_WARNING);
  return withContext(config, reporter, { dryRun: options.dryRun }, async (client) => {
    const stop = options.dryRun ? undefined : listenForStop(reporter, 'the POSTs in flight settle, no other is sent, the push lease is released');
    try {
      reporter.info(`Pushing new entries to ${config.baseUrl} ...`);
      // Only when something will be sent: a dry run creates nothing.
      if (!options.dryRun) reporter.info(irrevocable(config.root));
      const bar = reporter.counter('push');
      const call = { dryRun: options.dryRun, noLease: options.noLease, signal: stop?.signal, ...pushProgress(reporter, bar) };
      const result = await push({ client, ...engineOptions.push(config, call) })
        .finally(() => bar.stop())
        .catch((err: unknown) => {
          throw withStoppedPushReport(err, (r) => ({ command: 'push', ...r }));
        });
      reportRejected(reporter, config, result.rejected);
      reporter.result(formatPush(result), { command: 'push', ...result });
      return pushExitCode(result);
    } finally {
      stop?.dispose();
    }
  });
}
