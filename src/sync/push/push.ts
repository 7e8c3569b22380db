/**
 * Push: create remote entries from new local files, those without `identifier`
 * (docs/sync.md#sync-semantics; docs/service-interface.md#endpoints, endpoint 5).
 *
 * The guarantees (docs/sync.md#push-guarantees), and where each is kept:
 *
 * 1. **At most once.** The lock (`lock.ts`) keeps a second push out. Every POST is journaled
 *    and flushed first (`journal.ts`). A journaled POST of an earlier run, and every POST of
 *    this run whose answer was lost, failed or lacked an identifier, is looked up by slug in
 *    one `GET /api/entries` before anything is sent again; a POST without any answer is not
 *    taken as "not created" before its in-doubt time (twice the request timeout) has passed.
 *    Push always sends an explicit slug (`push-plan.ts`), so the match is exact.
 * 2. **Nothing lost.** Every candidate ends pushed (identifier written back atomically on the
 *    file's current content), pending (with its reason), deferred, or rejected (file, field, fix).
 * 3. **Within the limits.** Every request goes through the `RateBudget`; `p-limit` bounds those
 *    in flight; what the day's budget cannot cover is deferred, oldest first.
 * 4. **Validated before sending** (`push-plan.ts`).
 * 5. **Every answer shape**: the identifier from the answer, else from the batched list.
 * 6. **URLs the service can resolve, images that answer**: site URLs are sent absolute
 *    (`push-body.ts`); before its journal record, each image an entry shows must answer
 *    (`image-probe.ts`, on the site: no request of the budget), or the entry is deferred.
 *
 * Parts: `push-run.ts` (options, run state, result), `reconcile.ts` (earlier runs' POSTs),
 * `push-send.ts` (send rounds), `push-settle.ts` (write-back of a created entry).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RemoteEntry } from '../../service/schemas.js';
import { isErrorCode } from '../../core/errors.js';
import { DEFAULT_MAX_IMAGE_MB } from '../../core/config.js';
import { failpoint } from '../../core/failpoint.js';
import { entryPermalinks } from '../../entry/permalinks.js';
import { probeImages } from './image-probe.js';
import { refusedImageProblem } from '../../entry/entry-links.js';
import { readServiceTagNames, type EntryProblem } from '../../entry/entry-problems.js';
import { Journal } from '../recovery/journal.js';
import { readEntryFiles } from '../../entry/entry-files.js';
import { acquireLock, type HeldLock } from '../store/lock.js';
import { takeLeaseFor } from './push-fence.js';
import { carriedSlugRejection, matchUnclaimed, planLocal, type PushCandidate, type PushRejection } from './push-plan.js';
import { reconcileJournal } from './reconcile.js';
import { outgoingBody, type OutgoingBody } from './push-body.js';
import type { PushLease } from './push-lease.js';
import { defer, isBudgetRefusal, pend, planItem, type PushOptions, type PushResult, type Run } from './push-run.js';
import { send } from './push-send.js';
import { settle } from './push-settle.js';
import { stopPush } from './push-stopped.js';
import { loadState, saveState, type SyncState } from '../store/state.js';
import { removeLeftoverTempFiles } from '../recovery/temp-files.js';
import { assertWorkspaceBinding } from '../../entry/workspace-binding.js';

/**
 * Pushes new local entry files.
 *
 * @throws {ChangelogSyncError} `E_LOCKED` when another process pushes to this content
 *   directory; `E_WORKSPACE_MISMATCH`, `E_AUTH` (nothing sent), or a failure of the initial
 *   listing. A single POST's failure is reported per file; an `E_AUTH` met while sending, or
 *   `E_FILE` (journal, state), is thrown once the report is on disk, with the result so far
 *   (`push-stopped.ts`).
 */
export async function push(options: PushOptions): Promise<PushResult> {
  const lock = options.dryRun ? undefined : await acquireLock(options.stateDir, 'push');
  try {
    return await pushHolding(options, lock);
  } finally {
    await lock?.release();
  }
}

/** What a sync's pull stage read, handed to its push stage under the same lock (`sync-job.ts`). */
export interface PushShared {
  /** The pull's listing, read after the lock was taken; its workspace already checked against the binding. */
  remote: RemoteEntry[];
  /** The state as the pull left it (saved, unless a dry run). */
  state: SyncState;
}
/**
 * The push of a job that holds the lock already (unless a dry run): `push` alone, or a sync's
 * push stage with what its pull read (`shared`). The lock is the caller's to release; the push
 * lease, taken here when there is something to send, is released here. With `shared`, only the
 * listing after taking the lease (another clone may have created an entry since) and the
 * lookups of POSTs in doubt are read again (docs/sync.md, "A sync is one job").
 *
 * @throws {ChangelogSyncError} as {@link push}, but `E_LOCKED`.
 */
export async function pushHolding(options: PushOptions, lock: HeldLock | undefined, shared?: PushShared): Promise<PushResult> {
  const dryRun = options.dryRun ?? false;
  const result: PushResult = { plan: [], pushed: [], pending: [], deferred: [], rejected: [], requests: 0, schedule: [], dayRemaining: 0, notes: [], dryRun };
  let lease: PushLease | undefined;
  try {
    if (lock?.recovered) {
      const r = lock.recovered;
      const note = 'unknown' in r ? 'took over a stale lock left by a process that died' : `took over a stale lock left by pid ${r.pid} on host "${r.host}" (${r.command}, since ${r.startedAt}), which is gone`;
      result.notes.push(note);
      options.onProgress?.(note);
    }
    await pushLocked(options, result, lock, (taken) => (lease = taken), shared);
  } catch (err) {
    throw stopPush(err, result);
  } finally {
    result.dayRemaining = options.client.budget.dayRemaining();
    await lease?.release();
  }
  return result;
}

/** @param onLease told of the push lease once taken: the caller releases it. */
async function pushLocked(options: PushOptions, result: PushResult, lock: HeldLock | undefined, onLease: (lease: PushLease | undefined) => void, shared: PushShared | undefined): Promise<void> {
  const { client, contentDir, stateDir, dryRun = false } = options;
  // A sync's pull swept them already, under the same lock.
  if (!dryRun && !shared) {
    const left = await removeLeftoverTempFiles(contentDir, stateDir);
    if (left.length > 0) result.notes.push(`removed ${left.length} temporary file(s) left by an interrupted write: ${left.join(', ')}`);
  }

  // 1. Read and validate every local file first.
  const files = await readEntryFiles(contentDir);
  const journal = await Journal.open(stateDir);
  const serviceTags = readServiceTagNames(contentDir);
  // Images and links are checked as `check` checks them (entry-links.ts), against the site's routes.
  const permalinks = entryPermalinks(files, options.today ?? new Date().toISOString().slice(0, 10));
  const imageRoots = [contentDir, ...(options.siteDir ? [options.siteDir] : [])];
  const local = planLocal(files, serviceTags, { imageRoots, permalinks, maxImageBytes: (options.maxImageMb ?? DEFAULT_MAX_IMAGE_MB) * 2 ** 20 });
  result.rejected.push(...local.rejected);
  if (local.candidates.length === 0 && journal.list().length === 0) return;

  // Across clones: the push lease, taken before the listing, so that the listing shows what
  // another clone's push created (adopted below, never sent twice).
  let lease: PushLease | undefined;
  if (!dryRun && local.candidates.length > 0) {
    const taken = await takeLeaseFor(options, result);
    if ('stopped' in taken) {
      // Told to stop before anything was read or sent: every file waits for the next run.
      result.plan = local.candidates.map(planItem);
      for (const c of local.candidates) pend(result, c, `not sent: ${taken.stopped}`);
      return;
    }
    lease = taken.lease;
    onLease(lease);
  }

  // 2. One listing: slugs in use, mirrored entries, reconciliation. A sync's pull read it under
  // the same lock; read again once the lease was taken, to see another clone's creations.
  let remote: RemoteEntry[];
  try {
    if (!shared) {
      const workspace = await client.getWorkspace();
      await assertWorkspaceBinding(contentDir, workspace);
    }
    remote = shared && !lease ? shared.remote : await client.listEntries();
  } catch (err) {
    if (!isBudgetRefusal(err)) throw err;
    // The day's budget cannot even list: everything valid is deferred, nothing is lost.
    result.plan = local.candidates.map(planItem);
    for (const p of result.plan) defer(result, p, (err as Error).message);
    return;
  }
  const run: Run = {
    options,
    journal,
    state: shared?.state ?? (await loadState(stateDir)),
    claimed: local.claimed,
    result,
    lock,
    lease,
    bodies: new Map(),
    inDoubtMs: options.inDoubtMs ?? 2 * client.timeoutMs,
    sleep: options.sleep ?? ((ms) => sleep(ms)),
  };

  try {
    // 3. POSTs journaled by earlier runs.
    const settled = await reconcileJournal(run, local.candidates, remote, files.map((f) => f.rel), new Set(local.rejected.map((r) => r.file)));

    // 4. Slugs used remotely by entries no local file mirrors: adopt or reject.
    const bySlug = new Map<string, RemoteEntry[]>();
    for (const e of remote) bySlug.set(e.slug, [...(bySlug.get(e.slug) ?? []), e]);
    const toSend: PushCandidate[] = [];
    for (const c of local.candidates) {
      if (settled.has(c.file)) continue;
      // A slug held remotely by an entry a local file carries (renamed on the service since the
      // last pull, or its file does not parse): the service would rename this one.
      const carried = (bySlug.get(c.slug) ?? []).find((r) => run.claimed.has(r.identifier));
      if (carried) {
        result.rejected.push(carriedSlugRejection(c, carried, local.carriers.get(carried.identifier) ?? '?'));
        continue;
      }
      const used = (bySlug.get(c.slug) ?? []).filter((r) => !run.claimed.has(r.identifier));
      if (used.length === 0) {
        toSend.push(c);
        continue;
      }
      const match = matchUnclaimed(c, used);
      if ('reject' in match) result.rejected.push(match.reject);
      else await settle(run, c, undefined, match.adopt.identifier, match.adopt.status, 'adopted');
    }

    // 5. The HTML each file is sent with; before anything is journaled, its images must answer.
    const bodies = new Map(toSend.map((c) => [c.file, outgoingBody(c.entry.body, c.file, permalinks, options.siteUrl)]));
    const ready = await readyToSend(run, toSend, bodies);
    run.bodies = new Map([...bodies].map(([file, b]) => [file, b.html]));

    // 6. The plan, oldest first; what the day cannot cover is deferred (one list request kept for reconciliation).
    const planned = toSend.filter((c) => bodies.get(c.file)!.unresolved.length === 0);
    result.plan = planned.map((c) => (dryRun ? { ...planItem(c), html: bodies.get(c.file)!.html, images: bodies.get(c.file)!.images } : planItem(c)));
    const fits = Math.max(0, client.budget.dayRemaining() - 1);
    const now = ready.slice(0, fits);
    for (const c of ready.slice(fits)) defer(result, planItem(c), 'the day\'s request budget cannot cover it');
    result.requests = now.length + (now.length > 0 ? 1 : 0);
    result.schedule = client.budget.schedule(now.length).map((t) => new Date(t).toISOString());
    if (dryRun) return;
    failpoint('push:after-plan');

    // 7. Send, in rounds: what a 5xx refused before creating anything is sent again.
    await send(run, now);
  } finally {
    // Report in plan order (oldest first), not in the order answers came back.
    const order = new Map(local.candidates.map((c, i) => [c.file, i]));
    const byPlan = (a: { file: string }, b: { file: string }) => (order.get(a.file) ?? -1) - (order.get(b.file) ?? -1);
    result.pushed.sort(byPlan);
    result.pending.sort(byPlan);
    if (!dryRun) {
      failpoint('push:before-state-save');
      await saveState(stateDir, run.state);
      failpoint('push:after-state-save');
    }
  }
  if (run.stop && isErrorCode(run.stop, 'E_AUTH')) throw run.stop;
}

/**
 * The files whose body can be sent now; the others are pending (site URLs, no site URL
 * configured) or deferred (an image that does not answer yet). A dry run checks no image.
 */
async function readyToSend(run: Run, files: PushCandidate[], bodies: ReadonlyMap<string, OutgoingBody>): Promise<PushCandidate[]> {
  const { options, result } = run;
  const withSite = files.filter((c) => {
    const unresolved = bodies.get(c.file)!.unresolved;
    if (unresolved.length === 0) return true;
    pend(result, c, `not sent: its body links to the site (${unresolved.slice(0, 3).join(', ')}) and no site URL is configured, so the service could not resolve those links (fix: set CHANGELOG_SITE_URL or \`siteUrl\` in changelog.config.json to the published site's URL)`);
    return false;
  });
  if (options.dryRun) return withSite;
  const urls = withSite.flatMap((c) => bodies.get(c.file)!.images);
  if (urls.length === 0) return withSite;
  const outcomes = await probeImages(urls, options.probeImage, options.concurrency ?? 4);
  return withSite.filter((c) => {
    const failed = bodies.get(c.file)!.images.flatMap((url) => {
      const o = outcomes.get(url)!;
      return o.live ? [] : [{ url, ...o }];
    });
    // An address the guarded fetcher refuses is refused on every run: an error of the entry, not a wait.
    const refused = failed.filter((o) => o.refused);
    if (refused.length > 0) {
      result.rejected.push(refusedImages(c.file, refused));
      return false;
    }
    const dead = failed.map((o) => `${o.url} (${o.reason})`);
    if (dead.length === 0) return true;
    (result.awaitingImages ??= []).push(c.file);
    defer(result, planItem(c), `an image it shows does not answer yet: ${dead.join(', ')}; it is sent once the site serves ${dead.length === 1 ? 'it' : 'them'}`);
    return false;
  });
}

/** The rejection of a file showing images at addresses push never requests: each URL, why, and the fix. */
function refusedImages(file: string, refused: Array<{ url: string; reason: string }>): PushRejection {
  const problems: EntryProblem[] = refused.map(({ url, reason }) => ({ field: 'body', ...refusedImageProblem(url, reason) }));
  return { file, reason: `${file}: ${problems.map((p) => `${p.message} (fix: ${p.hint})`).join('; ')}`, field: 'body', problems };
}
