/**
 * The one place errors become messages and exit codes (docs/architecture.md#conventions). Stacks
 * only with `--debug`; the token never printed. A command that printed its report returns its
 * exit code (`worstExit`); it throws only when it could not finish, and the error is reported
 * after what the command had done (`ChangelogSyncError.done`). A file system error no step named
 * is told by path, code and fix (`E_FILE`). In GitHub Actions every error is also an `::error`
 * annotation and a job summary section with the fix where Actions sets it, unless the command showed it.
 */
import { isAbsolute } from 'node:path';
import { ChangelogSyncError, type ErrorCode } from '../../core/errors.js';
import { fileError, isErrnoError, shownPaths } from '../../core/file-error.js';
import { annotation, escapeControl, markdownText } from './github-actions.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { Reporter } from './reporter.js';

/** The code of an error that is not a {@link ChangelogSyncError}: a defect. */
const INTERNAL: ErrorCode = 'E_INTERNAL';

/** `cause` as `--debug` prints it: its stack when it is an error. */
function causeText(cause: unknown): string {
  if (cause instanceof Error) return cause.stack ?? String(cause);
  // An object that is not an error reads as its JSON, not `[object Object]`.
  return typeof cause === 'object' && cause !== null ? JSON.stringify(cause) : String(cause);
}

/** Where a repository's secrets and variables are changed (GitHub's settings page). */
export const ACTIONS_SETTINGS_PAGE = 'Settings > Secrets and variables > Actions';

/** What of an error the run's page shows; its message starts with its file. */
type ShownError = Pick<ChangelogSyncError, 'code' | 'message'> & Partial<Pick<ChangelogSyncError, 'hint' | 'status' | 'file' | 'line'>>;

/** The fix in GitHub Actions: where a local fix names an environment variable, the repository secret or variable (a defect's: run with --debug). */
function actionsHint(err: ShownError, secret: string): string | undefined {
  if (err.code === INTERNAL) return 'run the command again with --debug for the stack, and please report it';
  if (err.code === 'E_AUTH') {
    const refused = err.status === 403 ? 'is refused for this workspace (403 Forbidden)' : err.status === 401 ? 'is not accepted (401 Unauthorized)' : 'is missing or not accepted';
    return `the repository secret ${secret} ${refused}: replace it in the repository's ${ACTIONS_SETTINGS_PAGE} ("Update" on ${secret}) with a workspace access token, made in the workspace settings of the service that ${secret === 'CHANGELOG_TOKEN' ? 'CHANGELOG_BASE_URL names' : `its baseUrl in changelog.config.json names`}, then run the workflow again`;
  }
  if (err.hint && /\bCHANGELOG_(?:TOKEN|BASE_URL)\b/.test(err.hint)) return `${err.hint} (in GitHub Actions: the repository's ${ACTIONS_SETTINGS_PAGE})`;
  return err.hint;
}

/**
 * The `::error` annotation and job summary section of the error, with its fix (reporter.failure:
 * in Actions only, once); a workspace's (`Reporter.workspace`) named in its title and text.
 */
function showInActions(reporter: Reporter, err: ShownError, secret: string): void {
  if (!reporter.actions) return;
  const hint = actionsHint(err, secret);
  const ws = reporter.workspace === undefined ? '' : ` for workspace "${reporter.workspace}"`;
  const title = `changelog-sync failed${ws}: ${err.code}`;
  // An annotation's file is relative to the repository root: an absolute path stays in the text.
  const onFile = err.file && !isAbsolute(err.file) ? { file: err.file, line: err.line } : {};
  const text = `${reporter.workspace === undefined ? '' : `workspace "${reporter.workspace}": `}${err.message}${hint ? `. Fix: ${hint}` : ''}`;
  const summary = [
    `### ${title}`,
    '',
    markdownText(err.message),
    '',
    ...(hint ? [`**Fix:** ${markdownText(hint)}`, ''] : []),
  ].join('\n');
  // The message carries data (a server's words, a file name): no control character reaches the log.
  reporter.failure(annotation('error', escapeControl(text), { ...onFile, title }), summary);
}

/** The error with its absolute paths under `cwd` relative to it (its file, message and fix); its code, cause and the rest kept. */
function shownRelative(err: ChangelogSyncError, cwd: string): ChangelogSyncError {
  const file = err.file === undefined ? undefined : shownPaths(err.file, cwd);
  const message = shownPaths(err.message, cwd);
  const hint = err.hint === undefined ? undefined : shownPaths(err.hint, cwd);
  if (file === err.file && message === err.message && hint === err.hint) return err;
  const shown = new ChangelogSyncError(err.code, message, { cause: err.cause, status: err.status, file, line: err.line, field: err.field, hint });
  shown.done = err.done;
  shown.stack = err.stack;
  return shown;
}

/**
 * Prints an error as users read it and returns the exit code: {@link EXIT.USAGE} for `E_USAGE`,
 * else {@link EXIT.ERROR} (a defect is `E_INTERNAL` in `--json`, a file system error `E_FILE`).
 * @param secret the variable the token is read from, named in an `E_AUTH` fix in Actions (a workspace's `tokenEnv`).
 */
export function handleError(err: unknown, reporter: Reporter, debug = false, secret = 'CHANGELOG_TOKEN'): ExitCode {
  if (!(err instanceof ChangelogSyncError) && isErrnoError(err)) {
    err = fileError(err, { file: err.path ?? '(a file the step did not name)', step: err.syscall ? `a file operation (${err.syscall})` : 'a file operation' });
  }
  // The engine names files by their absolute paths: shown relative to the working directory.
  if (err instanceof ChangelogSyncError && reporter.cwd !== undefined) err = shownRelative(err, reporter.cwd);
  if (err instanceof ChangelogSyncError) {
    const where = err.file ? `${err.file}${err.line ? `:${err.line}` : ''}: ` : '';
    const message = err.file && err.message.startsWith(err.file) ? err.message : `${where}${err.message}`;
    const json = { code: err.code, message: err.message, status: err.status, file: err.file, line: err.line, field: err.field, hint: err.hint };
    // What was done first (stdout, or the --json document), then the error (stderr).
    if (err.done) reporter.result(err.done.lines.join('\n'), { ...err.done.data, error: json });
    else if (reporter.json) reporter.result('', { error: json });
    reporter.error(`error ${err.code}: ${message}`);
    if (err.hint) reporter.error(`  fix: ${err.hint}`);
    if (debug) reporter.error(String(err.stack ?? '') + (err.cause ? `\ncaused by: ${causeText(err.cause)}` : ''));
    showInActions(reporter, { code: err.code, message, hint: err.hint, status: err.status, file: err.file, line: err.line }, secret);
    return err.code === 'E_USAGE' ? EXIT.USAGE : EXIT.ERROR;
  }
  // Anything may be thrown: an error, or a value with or without a message.
  const thrown = err as { message?: unknown; stack?: unknown } | null | undefined;
  const message = typeof thrown?.message === 'string' ? thrown.message : String(err);
  reporter.error(`error: ${message}`);
  reporter.error(debug ? (typeof thrown?.stack === 'string' ? thrown.stack : '') : '  (an unexpected error: run again with --debug for the stack, and please report it)');
  if (reporter.json) reporter.result('', { error: { code: INTERNAL, message } });
  showInActions(reporter, { code: INTERNAL, message }, secret);
  return EXIT.ERROR;
}
