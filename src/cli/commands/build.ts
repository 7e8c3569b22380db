/**
 * `changelog-sync build [--allow-private]`.
 */
import type { Config } from '../../core/config.js';
import { openStateFormat } from '../../sync/store/state-format.js';
import { formatStateChange } from '../context.js';
import type { BuildCall } from '../../options/engine-options.js';
import type { ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { buildExitCode, buildWithProgress, formatBuild, requireSiteUrlInCi } from '../steps/build-step.js';

/** Options of {@link buildCommand}: `--allow-private`, `--no-cache`. */
export type BuildCommandOptions = Pick<BuildCall, 'allowPrivate' | 'noCache'>;

/**
 * Builds the site and reports it.
 * @throws {ChangelogSyncError} `E_CONFIG` for a private workspace without `allowPrivate`, or
 *   in GitHub Actions without a site URL ({@link requireSiteUrlInCi}); `E_BUILD`;
 *   `E_STATE_FORMAT` for a state directory of a newer format (the build records the site's
 *   inputs and the feeds' dates there), before anything is written.
 */
export async function buildCommand(config: Config, reporter: Reporter, options: BuildCommandOptions = {}): Promise<ExitCode> {
  // In GitHub Actions (the environment the CLI was started with): the build that deploys
  // (the site URL it needs, the inputs it records).
  requireSiteUrlInCi(config);
  const change = await openStateFormat(config.stateDir, { migrate: true, root: config.root });
  if (change) reporter.info(formatStateChange(config, change));
  const result = await buildWithProgress(config, reporter, options);
  // `--json`: the result with its files counted, less what is told elsewhere (the unfinished
  // entries are named on stderr, the feeds' dates recorded in the state directory).
  reporter.result(formatBuild(result, config.cwd), { command: 'build', ...result, files: result.files.length, unfinished: undefined, feedDates: undefined });
  return buildExitCode(result);
}

