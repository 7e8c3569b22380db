/**
 * `changelog-sync check [files...]`: validates local entry files with no network, for
 * pull-request checks. Exit code 5 when any file has an error.
 *
 * Output: one line per problem, `file:line: error: message (fix: ...)`; in GitHub Actions
 * also a workflow command `::error file=...,line=...::message` per problem (first, on
 * stdout), so that the pull request shows it on the line; `--json` prints the
 * {@link CheckResult} (the workflow commands then go to stderr).
 *
 * @module
 */
import { resolve } from 'node:path';
import type { Config } from '../../core/config.js';
import { assertInsideProject } from '../../core/project-path.js';
import { checkEntryFiles } from '../../sync/push/entry-check.js';
import { allowsLoopback } from '../../service/guarded-fetch.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import { isGitHubActions } from '../../core/ci-env.js';
import type { Reporter } from '../output/reporter.js';
import { formatCheck, problemAnnotation } from '../reports/check-report.js';

/**
 * Runs the check and reports it. Needs no token and no service.
 * @param files paths relative to the working directory; default every entry file.
 * @returns {@link EXIT.INVALID} when a file has an error, else {@link EXIT.OK}.
 * @throws {ChangelogSyncError} `E_OUTSIDE_PROJECT` when a file is a symbolic link out of the project.
 */
export async function checkCommand(config: Config, reporter: Reporter, files: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  await assertInsideProject({ ...config, files: files.map((f) => resolve(f)) });
  const result = await checkEntryFiles({ contentDir: config.contentDir, stateDir: config.stateDir, files, cwd: process.cwd(), siteDir: config.siteDir, maxImageMb: config.maxImageMb, allowLoopback: allowsLoopback(config.baseUrl) });
  // Workflow commands go to stdout, where the runner reads them (stderr with --json); the
  // reporter writes every other line so that the runner cannot read it as one.
  if (isGitHubActions(env)) reporter.workflowCommands(result.problems.map(problemAnnotation));
  reporter.result(formatCheck(result), { command: 'check', ...result });
  return result.errors > 0 ? EXIT.INVALID : EXIT.OK;
}
