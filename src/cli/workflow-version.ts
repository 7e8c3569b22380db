/**
 * One version decides (docs/github-actions.md): the reusable workflows run the team's locked CLI and
 * pass their major version in `CHANGELOG_SYNC_WORKFLOW_VERSION`; a CLI of another major stops before
 * doing anything, saying which to update. Without the variable nothing is checked.
 */
import { ChangelogSyncError } from '../core/errors.js';
import { annotation } from './output/github-actions.js';
import type { Reporter } from './output/reporter.js';

/** The variable the reusable workflows set to their major version (`'1'`; `v1` and `1.2.3` are read too). */
const WORKFLOW_VERSION_VARIABLE = 'CHANGELOG_SYNC_WORKFLOW_VERSION';

const major = (version: string): number | undefined => {
  const m = /^v?(\d+)(?:\.\d+){0,2}(?:[-+].*)?$/.exec(version.trim());
  return m ? Number(m[1]) : undefined;
};

/**
 * Refuses to run under a workflow of another major: an `::error::` annotation and the job summary, then throws.
 * @param cliVersion this CLI's version (package.json's).
 * @param env the environment the CLI was started with (read at its entry, src/cli.ts).
 * @throws {ChangelogSyncError} `E_CONFIG` (field {@link WORKFLOW_VERSION_VARIABLE}) when the majors differ or the variable is no version.
 */
export function requireWorkflowVersion(reporter: Reporter, cliVersion: string, env: NodeJS.ProcessEnv): void {
  const given = env[WORKFLOW_VERSION_VARIABLE];
  if (given === undefined || given === '') return;
  const workflow = major(given);
  const cli = major(cliVersion);
  if (workflow === undefined || cli === undefined) {
    throw new ChangelogSyncError('E_CONFIG', `${WORKFLOW_VERSION_VARIABLE} ${JSON.stringify(given)} is not a version: changelog-sync's workflows set it to their major version`, {
      field: WORKFLOW_VERSION_VARIABLE,
      hint: `leave ${WORKFLOW_VERSION_VARIABLE} to changelog-sync's workflows (unset it elsewhere)`,
    });
  }
  if (workflow === cli) return;
  const fix =
    workflow < cli
      ? `update the workflow: the \`uses:\` lines of .github/workflows/changelog.yml and changelog-check.yml to a v${cli} release of changelog-sync's workflows (Dependabot's github-actions pull request; \`npx changelog-sync@${cli} init --dry-run\` shows the lines)`
      : `update the CLI: \`npm install changelog-sync@^${workflow}\` and commit package.json and package-lock.json (Dependabot's npm pull request)`;
  const message = `changelog-sync's workflow is version ${workflow} and the CLI of package-lock.json is ${cliVersion} (version ${cli}): they must be of one major version. Nothing was done.`;
  // The run's one failure annotation and summary (the error handler then adds no other).
  reporter.failure(
    annotation('error', `${message} Fix: ${fix}.`, { title: 'changelog-sync: the workflow and the CLI are of different versions' }),
    `### changelog-sync: the workflow and the CLI are of different versions\n\n${message}\n\n**Fix**: ${fix}.\n`,
  );
  throw new ChangelogSyncError('E_CONFIG', message, { field: WORKFLOW_VERSION_VARIABLE, hint: fix });
}
