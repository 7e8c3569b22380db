/**
 * How `check` words a problem in a file: the same words in `check`, `push`, `sync` and `dev`.
 */
import type { CheckProblem, CheckResult } from '../../sync/push/entry-check.js';
import { annotation } from '../output/github-actions.js';

/** `message (fix: hint)`: a problem's words, the same in `check` and `push`. */
export function problemText(p: Pick<CheckProblem, 'message' | 'hint'>): string {
  return `${p.message}${p.hint ? ` (fix: ${p.hint})` : ''}`;
}

/** The GitHub Actions annotation of a problem (on the file's line in the pull request). */
export function problemAnnotation(p: CheckProblem): string {
  return annotation(p.severity, problemText(p), { file: p.file, line: p.line, title: `changelog-sync check${p.field ? `: ${p.field}` : ''}` });
}

/** Human summary of a check. */
export function formatCheck(r: CheckResult): string {
  // `file:line: severity: message (fix: hint)`.
  const lines = r.problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.severity}: ${problemText(p)}`);
  const warnings = r.problems.length - r.errors;
  const errors = r.errors === 0 ? 'no errors' : `${r.errors} error${r.errors === 1 ? '' : 's'}`;
  lines.push(`Checked ${r.checked} file${r.checked === 1 ? '' : 's'}: ${errors}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`);
  return lines.join('\n');
}
