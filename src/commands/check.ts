/**
 * `changelog-sync check [files...]`: validates local entry files with no network, for
 * pull-request checks. Exit code 5 when any file has an error.
 *
 * Output: one line per problem, `file:line: error: message (fix: ...)`; in GitHub Actions
 * also a workflow command `::error file=...,line=...::message` per problem, so that the
 * pull request shows it on the line; `--json` prints the {@link CheckResult}.
 *
 * @module
 */
import type { Config } from '../config.js';
import { checkEntryFiles, type CheckProblem, type CheckResult } from '../mirror/entry-check.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';

/** `file:line: severity: message (fix: hint)`. */
export function formatProblem(p: CheckProblem): string {
  return `${p.file}${p.line ? `:${p.line}` : ''}: ${p.severity}: ${p.message}${p.hint ? ` (fix: ${p.hint})` : ''}`;
}

/** GitHub Actions workflow command for a problem (properties and message escaped as GitHub requires). */
export function annotation(p: CheckProblem): string {
  const prop = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/:/g, '%3A').replace(/,/g, '%2C');
  const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const props = [`file=${prop(p.file)}`];
  if (p.line) props.push(`line=${p.line}`);
  props.push(`title=${prop(`changelog-sync check${p.field ? `: ${p.field}` : ''}`)}`);
  return `::${p.severity === 'error' ? 'error' : 'warning'} ${props.join(',')}::${data(`${p.message}${p.hint ? ` (fix: ${p.hint})` : ''}`)}`;
}

/** Human summary of a check. */
export function formatCheck(r: CheckResult): string {
  const lines = r.problems.map(formatProblem);
  const warnings = r.problems.length - r.errors;
  lines.push(
    r.errors === 0
      ? `Checked ${r.checked} file${r.checked === 1 ? '' : 's'}: no errors${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`
      : `Checked ${r.checked} file${r.checked === 1 ? '' : 's'}: ${r.errors} error${r.errors === 1 ? '' : 's'}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`,
  );
  return lines.join('\n');
}

/**
 * Runs the check and reports it. Needs no token and no service.
 * @param files paths relative to the working directory; default every entry file.
 * @returns {@link EXIT.INVALID} when a file has an error, else {@link EXIT.OK}.
 */
export async function checkCommand(config: Config, reporter: Reporter, files: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const result = await checkEntryFiles({ contentDir: config.contentDir, stateDir: config.stateDir, files, cwd: process.cwd() });
  if (env.GITHUB_ACTIONS === 'true') for (const p of result.problems) reporter.error(annotation(p));
  reporter.result(formatCheck(result), { command: 'check', ...result });
  return result.errors > 0 ? EXIT.INVALID : EXIT.OK;
}
