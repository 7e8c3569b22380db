/**
 * The one place errors become messages and exit codes (DESIGN.md "Conventions": commands
 * throw; one top-level handler maps). Stacks only with `--debug`; the token never printed.
 *
 * @module
 */
import { ChangelogSyncError, ExitError } from '../errors.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { Reporter } from './reporter.js';

/** Prints an error the way users read it and returns the exit code. */
export function handleError(err: unknown, reporter: Reporter, debug = false): ExitCode | number {
  if (err instanceof ExitError) return err.exitCode;
  if (err instanceof ChangelogSyncError) {
    const where = err.file ? `${err.file}${err.line ? `:${err.line}` : ''}: ` : '';
    const message = err.file && err.message.startsWith(err.file) ? err.message : `${where}${err.message}`;
    reporter.error(`error ${err.code}: ${message}`);
    if (err.hint) reporter.error(`  fix: ${err.hint}`);
    if (debug) reporter.error(String(err.stack ?? '') + (err.cause ? `\ncaused by: ${(err.cause as Error)?.stack ?? String(err.cause)}` : ''));
    if (reporter.json) reporter.result('', { error: { code: err.code, message: err.message, status: err.status, file: err.file, line: err.line, field: err.field, hint: err.hint } });
    return err.code === 'E_USAGE' ? EXIT.USAGE : EXIT.ERROR;
  }
  const e = err as Error;
  reporter.error(`error: ${e?.message ?? String(err)}`);
  reporter.error(debug ? String(e?.stack ?? '') : '  (an unexpected error: run again with --debug for the stack, and please report it)');
  if (reporter.json) reporter.result('', { error: { code: 'E_INTERNAL', message: e?.message ?? String(err) } });
  return EXIT.ERROR;
}
