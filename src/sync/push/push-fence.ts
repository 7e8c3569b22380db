/**
 * Push's fence (docs/sync.md#fencing): what a push holds so that no other pusher
 * sends the same file, and the check made just before each POST leaves, once the rate
 * budget admitted it. A process that lost its lock or its lease sends nothing more,
 * including what it had queued.
 */
import { ChangelogSyncError } from '../../core/errors.js';
import { takePushLease, type PushLease } from './push-lease.js';
import type { PushOptions, PushResult, Run } from './push-run.js';

/** What {@link takeLeaseFor} got: the lease (none without a remote to hold it), or why it stopped. */
export type LeaseTaken = { lease: PushLease | undefined } | { stopped: string };

/**
 * Takes the push lease for a run that will send (`push-lease.ts`); without a git remote, or with
 * the lease off, notes that the guarantee is per directory.
 * @returns the lease; or, told to stop before it was taken, why.
 * @throws {ChangelogSyncError} `E_LEASE` and `E_LOCKED` from {@link takePushLease}.
 */
export async function takeLeaseFor(options: PushOptions, result: PushResult): Promise<LeaseTaken> {
  if (options.signal?.aborted) return { stopped: stoppedText(options.signal) };
  if (options.lease === false) return { lease: undefined };
  const taken = await takePushLease({
    dir: options.contentDir,
    remote: options.lease?.remote,
    ref: options.lease?.ref,
    ttlMs: options.lease?.ttlMs,
    env: options.lease?.env,
    inDoubtMs: options.inDoubtMs ?? 2 * options.client.timeoutMs,
    command: 'push',
    onProgress: options.onProgress,
    signal: options.signal,
  });
  if ('stopped' in taken) return { stopped: `${stoppedText(options.signal!)} while it waited for the push lease` };
  if ('perDirectory' in taken) {
    const note = `at most once per directory only: ${taken.perDirectory}, so no push lease is shared with other clones (see "The push lease" in docs/sync.md)`;
    result.notes.push(note);
    options.onProgress?.(note);
    return { lease: undefined };
  }
  result.notes.push(...taken.notes);
  return { lease: taken.lease };
}

/** Why a run told to stop (SIGTERM, SIGINT: the reason its signal was aborted with) sends nothing more. */
function stoppedText(signal: AbortSignal): string {
  return `the run was told to stop (${typeof signal.reason === 'string' ? signal.reason : 'aborted'})`;
}

/** Why this run may not send now (told to stop, lock or lease lost: {@link PushLease.verify}), or undefined. */
export async function fenceLost(run: Pick<Run, 'lock' | 'lease' | 'options'>): Promise<ChangelogSyncError | undefined> {
  const signal = run.options.signal;
  if (signal?.aborted) {
    return new ChangelogSyncError('E_INTERRUPTED', stoppedText(signal), { hint: 'run push again: what was sent is settled, the rest is sent then' });
  }
  const lockLost = await run.lock?.verify();
  if (lockLost) {
    return new ChangelogSyncError('E_LOCKED', `the lock of this content directory was lost while pushing (${lockLost})`, {
      hint: 'another process may have taken it over; run push again when it is done',
    });
  }
  const leaseLost = await run.lease?.verify();
  if (leaseLost) {
    return new ChangelogSyncError('E_LOCKED', `the push lease was lost while pushing: ${leaseLost}`, {
      hint: 'another clone may be pushing now; run push again when it is done: what it created is adopted, not sent again',
    });
  }
  return undefined;
}
