/**
 * `changelog-sync pull [--prune] [--dry-run]`.
 */
import type { Config } from '../../core/config.js';
import { assertInsideProject } from '../../core/project-path.js';
import type { ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { withContext } from '../context.js';
import { formatPull, pullExitCode, pullWithProgress, type PullStepOptions } from '../steps/pull-step.js';

/** Runs a pull and reports it. @returns see {@link pullExitCode}: 3 when there were conflicts. */
export async function pullCommand(config: Config, reporter: Reporter, options: PullStepOptions = {}): Promise<ExitCode> {
  return withContext(config, reporter, { dryRun: options.dryRun }, async (client) => {
    // Nothing is written through a symlink out of the project: checked once, before anything is read.
    await assertInsideProject(config);
    const result = await pullWithProgress(client, config, reporter, options);
    reporter.result(formatPull(result), { command: 'pull', ...result });
    return pullExitCode(result);
  });
}
