/**
 * A push stopped by an error (a 401 mid-run, a full disk, an unwritable journal or state;
 * docs/sync.md#push-guarantees, 2): settled files stay in the result, the failed one and every
 * unsent one are pending with the reason, and the result goes with the error, so the report
 * lists what was created and whether its identifier was written back.
 */
import { ChangelogSyncError } from '../../core/errors.js';
import { isErrnoError } from '../../core/file-error.js';
import type { PushCandidate } from './push-plan.js';
import { pend, type PushResult, type Run } from './push-run.js';

/** The result of the push each error stopped. */
const stoppedResults = new WeakMap<object, PushResult>();

/** The result of the push that `err` stopped, when it stopped one: what was created, written back, left pending and not sent before it. */
export function stoppedPushResult(err: unknown): PushResult | undefined {
  return typeof err === 'object' && err !== null ? stoppedResults.get(err) : undefined;
}

/**
 * Ties the result so far to the error that stops the push; the caller rethrows `err`.
 * @returns `err`.
 */
export function stopPush(err: unknown, result: PushResult): unknown {
  if (typeof err === 'object' && err !== null && !stoppedResults.has(err)) stoppedResults.set(err, result);
  return err;
}

/**
 * A send failed with an error that stops the run (a file that cannot be written): no other file
 * is sent after it, and it is pending with the reason unless already settled.
 */
export function stopSending(run: Run, c: PushCandidate, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  run.stop ??= err instanceof ChangelogSyncError ? err : new ChangelogSyncError(isErrnoError(err) ? 'E_FILE' : 'E_INTERNAL', message, { cause: err });
  if (run.result.pushed.some((p) => p.file === c.file) || run.result.pending.some((p) => p.file === c.file)) return;
  pend(run.result, c, `stopped by an error (${message}); if it was sent, the journal's record makes the next run look it up on the service before sending it again`);
}
