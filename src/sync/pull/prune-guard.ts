/**
 * The guard of `pull --prune` (docs/sync.md#what-pull-does): a
 * listing that lost entries by a glitch of the service must not delete the mirror.
 */
import { ChangelogSyncError } from '../../core/errors.js';
import type { RemoteEntry } from '../../service/schemas.js';
import type { SyncState } from '../store/state.js';

/** The largest share of the mirror one pruning run may remove without `--force`. */
const MAX_PRUNE_SHARE = 0.1;

/**
 * Refuses, before any write, a prune of a non-empty mirror against an empty listing or of more
 * than {@link MAX_PRUNE_SHARE} of it, unless `force`. Nothing without `prune`.
 * @throws {ChangelogSyncError} `E_PRUNE_REFUSED`, naming how many files would go and the fix.
 */
export function assertPruneAllowed(state: SyncState, remote: RemoteEntry[], options: { prune?: boolean; force?: boolean }): void {
  if (!options.prune || options.force) return;
  const mirrored = Object.keys(state.entries).length;
  if (mirrored === 0) return;
  const listed = new Set(remote.map((r) => r.identifier));
  const gone = Object.keys(state.entries).filter((id) => !listed.has(id)).length;
  const hint = 'if the service really lost or removed them, run again with --prune --force; otherwise run without --prune (files are kept and reported)';
  if (remote.length === 0) {
    throw new ChangelogSyncError('E_PRUNE_REFUSED', `pull --prune: the service listed no entries, and the mirror has ${mirrored}; nothing removed (an empty listing may be a glitch of the service)`, { hint });
  }
  if (gone > MAX_PRUNE_SHARE * mirrored) {
    throw new ChangelogSyncError('E_PRUNE_REFUSED', `pull --prune: ${gone} of the mirror's ${mirrored} entries are not listed by the service, more than a tenth at once; nothing removed`, { hint });
  }
}
