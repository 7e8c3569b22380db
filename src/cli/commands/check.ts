/**
 * `changelog-sync check [files...]`: validates local entry files and the configuration the build
 * would refuse, offline, for pull-request checks; exit code 5 on any error. One line per problem,
 * `file:line: error: message (fix: ...)`; in GitHub Actions also `::error file=...,line=...::`
 * first on stdout; `--json` prints the {@link CheckResult} (workflow commands then on stderr).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CONFIG_FILE, ENV, PACKAGED_SITE_DIR, type Config } from '../../core/config.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { lineOfJsonKey } from '../../core/json-syntax.js';
import { checkThemeOverride, siteThemes } from '../../site/data/themes.js';
import { assertInsideProject } from '../../core/project-path.js';
import { checkEntryFiles, type CheckProblem } from '../../sync/push/entry-check.js';
import { allowsLoopback } from '../../service/guarded-fetch.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import { isGitHubActions } from '../../core/ci-env.js';
import type { Reporter } from '../output/reporter.js';
import { formatCheck, problemAnnotation } from '../output/check-report.js';

/**
 * Refuses a folder with no content directory and no changelog.config.json: "Checked 0 files: no
 * errors" would pass a check run (or a workflow) in the wrong folder.
 * @throws {ChangelogSyncError} `E_CONFIG` naming the folder and the fix.
 */
function assertProject(config: Config): void {
  if (existsSync(config.contentDir) || existsSync(join(config.root, CONFIG_FILE))) return;
  const shown = relative(config.cwd, config.contentDir) || config.contentDir;
  throw new ChangelogSyncError('E_CONFIG', `${config.root} is not a changelog-sync project: it has no ${shown}/ and no ${CONFIG_FILE}, so there is nothing to check`, {
    field: 'contentDir',
    hint: `run check in the project's root (where ${shown}/ or ${CONFIG_FILE} is), set contentDir in ${CONFIG_FILE} (or CHANGELOG_CONTENT_DIR), or start a project with \`npx changelog-sync init\``,
  });
}

/** Configuration values a build would refuse, as problems of the file or variable that sets them: an unknown `theme` (themes.ts `checkThemeOverride`). */
async function settingProblems(config: Config): Promise<CheckProblem[]> {
  try {
    checkThemeOverride(config.theme, await siteThemes(config.siteDir, PACKAGED_SITE_DIR));
    return [];
  } catch (err) {
    if (!(err instanceof ChangelogSyncError)) throw err;
    const fromEnv = (config.env[ENV.theme] ?? '').trim() !== '';
    const file = fromEnv ? ENV.theme : relative(config.cwd, join(config.root, CONFIG_FILE)) || CONFIG_FILE;
    const text = fromEnv ? '' : readFileSync(join(config.root, CONFIG_FILE), 'utf8');
    return [{ file, line: fromEnv ? undefined : lineOfJsonKey(text, 'theme'), field: 'theme', severity: 'error', message: err.message, hint: err.hint }];
  }
}

/**
 * Runs the check and reports it. Needs no token and no service.
 * @param files paths relative to the working directory (`Config.cwd`) or absolute; default every entry file.
 * @returns {@link EXIT.INVALID} when a file has an error, else {@link EXIT.OK}.
 * @throws {ChangelogSyncError} `E_CONFIG` when the folder is not a project; `E_OUTSIDE_PROJECT`
 *   when a file is a symbolic link out of the project.
 */
export async function checkCommand(config: Config, reporter: Reporter, files: string[] = []): Promise<ExitCode> {
  assertProject(config);
  await assertInsideProject({ ...config, files: files.map((f) => resolve(config.cwd, f)) });
  const checked = await checkEntryFiles({ contentDir: config.contentDir, stateDir: config.stateDir, files, cwd: config.cwd, siteDir: config.siteDir, maxImageMb: config.maxImageMb, allowLoopback: allowsLoopback(config.baseUrl) });
  // The configuration values the build would refuse, before the files' problems.
  const settings = await settingProblems(config);
  const result = { ...checked, problems: [...settings, ...checked.problems], errors: checked.errors + settings.length };
  // Workflow commands go to stdout, where the runner reads them (stderr with --json); the
  // reporter writes every other line so that the runner cannot read it as one.
  if (isGitHubActions(config.env)) reporter.workflowCommands(result.problems.map(problemAnnotation));
  reporter.result(formatCheck(result), { command: 'check', ...result });
  return result.errors > 0 ? EXIT.INVALID : EXIT.OK;
}
