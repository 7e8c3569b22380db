/**
 * The push step of `push` and `sync` (engine options from `options/engine-options.ts`): progress,
 * summary (also of a push an error stopped), the rejected files' problems, exit code.
 */
import { join } from 'node:path';
import type { CheckProblem } from '../../sync/push/entry-check.js';
import { stripPath } from '../../entry/entry-problems.js';
import type { Config } from '../../core/config.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { fileError, isErrnoError, shownFrom } from '../../core/file-error.js';
import type { PushResult } from '../../sync/push/push-run.js';
import type { PushCall } from '../../options/engine-options.js';
import { stoppedPushResult } from '../../sync/push/push-stopped.js';
import { EXIT, worstExit, type ExitCode } from '../output/exit-codes.js';
import type { Counter, Reporter } from '../output/reporter.js';
import { problemText } from '../output/check-report.js';
import { commandLine } from '../../core/project-command.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Human summary of a push; for a dry run, the exact plan. */
export function formatPush(r: PushResult): string {
  const lines: string[] = [];
  const deferred = new Set(r.deferred.map((d) => d.file));
  const sending = r.plan.filter((p) => !deferred.has(p.file));
  if (r.dryRun) {
    lines.push(
      `Plan (dry run, nothing sent): push ${plural(sending.length, 'new entry', 'new entries')}, oldest first, ` +
        `in at most ${plural(r.requests, 'request', 'requests')} (${plural(sending.length, 'POST /api/entry', 'POST /api/entry')}` +
        `${sending.length > 0 ? ', and one GET /api/entries only if an answer is lost or lacks the identifier' : ''})` +
        `${r.deferred.length ? `; ${r.deferred.length} deferred (daily budget)` : ''}; ${r.dayRemaining} requests left today`,
    );
    sending.forEach((p, i) => {
      lines.push(`  ${i + 1}. ${p.file} -> POST /api/entry slug=${p.slug}${p.derived_slug ? ' (from the title)' : ''}${r.schedule[i] ? `, budget allows it at ${r.schedule[i]}` : ''}`);
      // The HTML as it would be sent (the reporter escapes control characters for the terminal).
      if (p.html !== undefined) lines.push('     html:', ...p.html.trimEnd().split('\n').map((l) => `       ${l}`));
      if (p.images?.length) lines.push(`     images that must answer before it is sent: ${p.images.join(', ')}`);
    });
    for (const p of r.pushed) lines.push(`  = ${p.file}: already on the service as ${p.identifier} (${p.how}); would write the identifier back, send nothing`);
  } else {
    const counts = [
      r.pending.length - r.deferred.length ? `${r.pending.length - r.deferred.length} pending` : '',
      r.deferred.length ? `${r.deferred.length} deferred` : '',
      r.rejected.length ? `${r.rejected.length} rejected` : '',
    ].filter(Boolean);
    lines.push(`Pushed ${plural(r.pushed.length, 'new entry', 'new entries')}${counts.length ? `, ${counts.join(', ')}` : ''}`);
    for (const p of r.pushed) {
      const note = p.how === 'reconciled' ? ' [found on the service, not sent again]' : p.how === 'adopted' ? ' [adopted: same slug, title and date on the service, not sent again]' : '';
      lines.push(`  + ${p.file} -> ${p.identifier} (${p.status ?? 'created'})${note}`);
    }
  }
  for (const p of r.pending) lines.push(`  … ${p.file}: ${p.reason}`);
  // Each problem is on stderr once (reportRejected), worded as check words it: here only the file.
  for (const p of r.rejected) lines.push(`  x ${p.file}: not sent (${plural(p.problems?.length || 1, 'problem', 'problems')}, listed above)`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  return lines.join('\n');
}

/** Each entry a stopped push created (or found) before the error: file, identifier, and whether the identifier is in the file. */
function createdBeforeError(r: PushResult): Array<{ file: string; identifier: string; written_back: boolean }> {
  return [
    ...r.pushed.map((p) => ({ file: p.file, identifier: p.identifier, written_back: true })),
    ...r.pending.flatMap((p) => (p.identifier ? [{ file: p.file, identifier: p.identifier, written_back: false }] : [])),
  ];
}

/** The lines that close the report of a push an error stopped: what exists on the service now, and what was not sent. */
function formatStopped(r: PushResult): string[] {
  const created = createdBeforeError(r);
  const notSent = r.pending.filter((p) => !p.identifier).length;
  const lines = [`Stopped by the error below: ${created.length === 0 ? 'nothing was created on the service before it' : `${plural(created.length, 'entry', 'entries')} on the service from this run's files`}${notSent ? `; ${plural(notSent, 'file', 'files')} not settled (listed above)` : ''}.`];
  for (const c of created) {
    lines.push(`  ${c.file} -> ${c.identifier}: ${c.written_back ? 'identifier written to the file' : 'identifier NOT written to the file (the next push writes it and sends nothing)'}`);
  }
  return lines;
}

/**
 * Attaches what a push had done to the error that stopped it (a 401 mid-run, a full disk), for the handler to list first.
 * @param data the `--json` document's fields besides `error`, from the push's result.
 * @returns the error to throw (a file system's error becomes `E_FILE`, to carry the report).
 */
export function withStoppedPushReport(err: unknown, data: (r: PushResult) => Record<string, unknown>): unknown {
  const r = stoppedPushResult(err);
  if (!r || (r.pushed.length === 0 && r.pending.length === 0)) return err;
  const error = isErrnoError(err) ? fileError(err, { file: err.path ?? '(a file)', step: 'pushing' }) : err;
  if (!(error instanceof ChangelogSyncError)) return err;
  error.done = { lines: [formatPush(r), ...formatStopped(r)], data: { ...data(r), created: createdBeforeError(r) } };
  return error;
}

/** Exit code of a push ({@link worstExit}): invalid files (5) > pending (1) > deferred (4: the day's budget, an image not answering yet) > ok. */
export function pushExitCode(r: PushResult): ExitCode {
  return worstExit([
    r.rejected.length > 0 ? EXIT.INVALID : EXIT.OK,
    r.pending.length > r.deferred.length ? EXIT.ERROR : EXIT.OK,
    r.deferred.length > 0 ? EXIT.DEFERRED : EXIT.OK,
  ]);
}

/** What `push --no-lease` and `sync --no-lease` say first: the guarantee they give up. */
export const NO_LEASE_WARNING =
  '--no-lease: no push lease is taken on the git remote, so the guarantee is at most once per directory only: another clone pushing the same new files now would send them again (docs/sync.md, "The push lease")';

/** A push's progress lines on the reporter and its POSTs counted on `bar` (the push step of `push` and `sync`). */
export function pushProgress(reporter: Reporter, bar: Counter): Pick<PushCall, 'onProgress' | 'onSent'> {
  return { onProgress: (m) => reporter.info(m), onSent: bar.update };
}

/** The line push states before sending: nothing it creates can be taken back (`check` named as the project runs it). */
export function irrevocable(root: string): string {
  return `Note: the service cannot edit or delete an entry once it is created; what is sent now stays as sent (run \`${commandLine(root, 'check')}\` first).`;
}

/**
 * Every problem of each rejected file once, as `check` words it, on stderr and, in GitHub Actions,
 * as an annotation on the file (paths relative to `Config.cwd`, the repository root there).
 */
export function reportRejected(reporter: Reporter, config: Pick<Config, 'contentDir' | 'cwd'>, rejected: PushResult['rejected']): void {
  for (const r of rejected) {
    const file = shownFrom(config.cwd, join(config.contentDir, r.file));
    const problems: CheckProblem[] = r.problems?.length
      ? r.problems.map((p) => ({ file, ...p }))
      : [{ file, line: r.line, field: r.field, severity: 'error', message: stripPath(r.reason, r.file) }];
    for (const p of problems) reporter.problem({ file: p.file, line: p.line, level: p.severity, message: problemText(p) });
  }
}
