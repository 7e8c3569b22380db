/**
 * A sync: pull, then push, as one job (docs/sync.md, "A sync is one job"): one lock from before
 * the pull's reads to the end of the push; the workspace and listing read once by the pull and
 * handed to the push with the state; temporary files swept, binding and paths checked once. The
 * push reads again only the listing after taking the lease, and POSTs in doubt. `pull` and
 * `push` alone each take the lock and read for themselves.
 */
import { failpoint } from '../core/failpoint.js';
import { assertInsideProject, type ProjectPaths } from '../core/project-path.js';
import type { ChangelogClient } from '../service/client.js';
import { startServiceReads, type ServiceReads } from '../service/reads.js';
import type { PullOptions, PullResult } from './pull/pull-run.js';
import type { PushOptions, PushResult } from './push/push-run.js';
import { acquireLock } from './store/lock.js';
import { loadState } from './store/state.js';

/** Options of {@link syncWorkspace}. */
export interface SyncOptions {
  client: ChangelogClient;
  contentDir: string;
  stateDir: string;
  /** Plan both stages: send nothing, write nothing, take no lock. */
  dryRun?: boolean;
  /** The project's paths, checked once before anything is read (`assertInsideProject`); default: not checked here. */
  project?: ProjectPaths;
  /** The pull stage's own options (prune, progress, images). */
  pull?: Omit<PullOptions, 'client' | 'contentDir' | 'stateDir' | 'dryRun' | 'reads'>;
  /** The push stage's own options (lease, concurrency, site URL, progress). */
  push?: Omit<PushOptions, 'client' | 'contentDir' | 'stateDir' | 'dryRun'>;
  /** Called between the stages with the pull's result (a report printed before the push starts). */
  onPulled?: (pulled: PullResult) => void;
}

/** What a sync did (or, with `dryRun`, would do). */
export interface SyncResult {
  pull: PullResult;
  push: PushResult;
}

/**
 * Pulls, then pushes, under one lock.
 * @throws {ChangelogSyncError} `E_OUTSIDE_PROJECT`, `E_LOCKED`, what the pull throws (nothing
 *   pushed then) or the push throws (`push/push.ts`: a stopped push carries its result). Its
 *   reads have ended by then: none is still open or books a request.
 */
export async function syncWorkspace(options: SyncOptions): Promise<SyncResult> {
  const { client, contentDir, stateDir, dryRun = false } = options;
  if (options.project) await assertInsideProject(options.project);
  // The lock before the reads: the listing the push uses must be read while no other push
  // of this directory can create an entry (a dry run sends nothing, and takes none).
  const lock = dryRun ? undefined : await acquireLock(stateDir, 'sync');
  let result: SyncResult;
  let reads: ServiceReads | undefined;
  try {
    // The reads go out before the stages' modules load: loading them overlaps the wait.
    reads = startServiceReads(client);
    const [{ pullLoaded }, { pushHolding }, state] = await Promise.all([import('./pull/pull.js'), import('./push/push.js'), loadState(stateDir)]);
    // A dry-run pull books into the state without saving it: the push plans from the state on disk.
    const pushState = dryRun ? structuredClone(state) : state;
    const pulled = await pullLoaded({ ...options.pull, client, contentDir, stateDir, dryRun, reads }, state);
    options.onPulled?.(pulled);
    if (!dryRun) failpoint('sync:after-pull');
    const pushed = await pushHolding({ ...options.push, client, contentDir, stateDir, dryRun }, lock, { remote: await reads.entries, state: pushState });
    result = { pull: pulled, push: pushed };
  } finally {
    // A job stopped by one read's failure closes the others before it returns (reads.ts).
    await reads?.cancel();
    await lock?.release();
  }
  if (!dryRun) failpoint('sync:after-push');
  return result;
}
