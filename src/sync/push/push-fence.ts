/**
 * Push's fence (docs/sync.md#fencing; issue 25): what a push holds so that no other pusher
 * sends the same file, and the check made just before each POST leaves, once the rate
 * budget admitted it. A process that lost its lock or its lease sends nothing more,
 * including what it had queued.
 *
 * @module
 */
import { ChangelogSyncError } from '../../core/errors.js';
import { takePushLease, type PushLease } from './push-lease.js';
import type { PushOptions, PushResult, Run } from './push-run.js';

/**
 * Takes the push lease for a run that will send (see `push-lease.ts`). Without a git remote
 * to hold it, notes that the guarantee is per directory and returns undefined.
 * @throws {ChangelogSyncError} `E_LOCKED` from {@link takePushLease}.
 */
export async function takeLeaseFor(options: PushOptions, result: PushResult): Promise<PushLease | undefined> {
  if (options.lease === false) return undefined;
  const taken = await takePushLease({
    dir: options.contentDir,
    remote: options.lease?.remote,
    ttlMs: options.lease?.ttlMs,
    inDoubtMs: options.inDoubtMs ?? 2 * options.client.timeoutMs,
    command: 'push',
    onProgress: options.onProgress,
  });
  if ('perDirectory' in taken) {
    const note = `at most once per directory only: ${taken.perDirectory}, so no push lease is shared with other clones (see "The push lease" in docs/sync.md)`;
    result.notes.push(note);
    options.onProgress?.(note);
    return undefined;
  }
  result.notes.push(...taken.notes);
  return taken.lease;
}

/**
 * Why this run may not send now (its lock or lease lost), or undefined: a local read of
 * the lock's holder file, and the lease's age (renewed against the remote when old).
 */
export async function fenceLost(run: Pick<Run, 'lock' | 'lease'>): Promise<ChangelogSyncError | undefined> {
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
