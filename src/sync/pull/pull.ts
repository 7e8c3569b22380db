/**
 * Pull: mirror the workspace's entries, tags and settings into the content directory
 * (docs/sync.md#sync-semantics; docs/service-interface.md#endpoints, endpoints 1, 2 and 6).
 *
 * Incremental and conflict-aware, per remote identifier, against `.changelog/state.json`
 * (the hash of the remote entry as last pulled, and of the file as last written):
 *
 * | remote | local file | action |
 * |---|---|---|
 * | new | - | written (`created`) |
 * | unchanged | untouched | nothing: no file is written |
 * | unchanged | edited | reported: local edits cannot be pushed (the interface has no update); file kept |
 * | unchanged | missing | written again (`restored`) |
 * | changed | untouched or missing | rewritten (`updated`), renamed when slug or date changed (`renamed`) |
 * | changed | edited | conflict: local file kept, remote version in `.changelog/conflicts/<id>.md`, exit code 3 |
 * | gone | any | reported; removed with `--prune`, unless edited locally |
 *
 * A pushed entry that was never pulled is adopted: its file is kept, only `status` is
 * brought up to date. A file whose identifier the state does not know (a fresh clone of
 * a repository without state) is adopted the same way.
 *
 * First, what an interrupted or lost run left is settled (docs/sync.md#sync-state): two files
 * with one identifier are repaired (`duplicate-repair.ts`), journaled POSTs and local
 * files' own entries are bound to their files (`recovery.ts`), so that no entry is
 * mirrored as a second file; `--prune` is checked (`prune-guard.ts`). Then nothing else
 * is written before the whole plan is known. Once it is, each file is converted and written
 * atomically, one after the other. The state is saved last.
 *
 * This module runs the steps in order; the parts are `pull-run.ts` (options, result,
 * shared run state), `pull-plan.ts` (the plan and the files' paths) and `pull-write.ts`
 * (conversion and writes).
 */
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { RemoteEntry, Tag, Workspace } from '../../service/schemas.js';
import { failpoint } from '../../core/failpoint.js';
import { dropXmlInvalid, XML_INVALID } from '../../core/markup-text.js';
import { repairDuplicates } from './duplicate-repair.js';
import type { EntryFile } from '../../entry/entry-file.js';
import { stripPath } from '../../entry/entry-problems.js';
import { frontmatterField } from '../../entry/frontmatter.js';
import { listEntriesDir, listEntryFiles, readEntryFiles } from '../../entry/entry-files.js';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import { acquireLock, type HeldLock } from '../store/lock.js';
import { isEdited, readMirrorFile, syncedOf, type LocalFile } from './mirror-reader.js';
import { applyPullAhead, clearPullAhead } from './write-ahead-log.js';
import { MediaRecord } from './media-record.js';
import { emptyMediaReport, entryWantsMedia, mirrorMedia } from './media-mirror.js';
import { planPull } from './pull-plan.js';
import { openPullRun, type PullOptions, type PullResult } from './pull-run.js';
import { writePull } from './pull-write.js';
import { assertPruneAllowed } from './prune-guard.js';
import { recoverBeforePull } from '../recovery/recovery.js';
import { remoteNotes } from '../../entry/remote-data.js';
import { startServiceReads, type ServiceReads } from '../../service/reads.js';
import { loadState, saveState, type SyncState } from '../store/state.js';
import { writeJsonIfChanged } from '../../core/atomic-file.js';
import { contentHash } from '../../core/hash.js';
import { removeLeftoverTempFiles } from '../recovery/temp-files.js';
import { assertWorkspaceBinding, TAGS_DATA_FILE, WORKSPACE_DATA_FILE } from '../../entry/workspace-binding.js';

/**
 * Pulls the workspace into the content directory.
 *
 * @throws {ChangelogSyncError} `E_WORKSPACE_MISMATCH` when the content directory mirrors
 *   another workspace; `E_LOCKED` when another process (a push) holds the content
 *   directory; `E_FILE` for an unreadable state; any client error (`E_AUTH`,
 *   `E_NETWORK`, ...) before anything is written. Whatever it throws, the reads it sent have
 *   ended by then (`ServiceReads.cancel`).
 */
export async function pull(options: PullOptions): Promise<PullResult> {
  const { client, stateDir, dryRun = false } = options;
  // The three reads go out at once (or went out already).
  const reads = options.reads ?? startServiceReads(client);
  let lock: HeldLock | undefined;
  try {
    // The content directory's lock (push takes it too): a pull and a push at once would
    // both write the state.
    lock = dryRun ? undefined : await acquireLock(stateDir, 'pull');
    const state = await loadState(stateDir);
    return await pullLoaded({ ...options, reads }, state);
  } finally {
    // The reads it sent end with it, while it holds the lock (a caller's are the caller's to end).
    if (!options.reads) await reads.cancel();
    await lock?.release();
  }
}

/**
 * The pull of a job that holds the content directory's lock already (unless a dry run) and
 * loaded the state: `pull` alone, or the pull stage of a sync (`sync-job.ts`). Books into
 * `state`, and saves it at the end (unless a dry run).
 *
 * @param options with the service reads already sent: the caller cancels them when this
 *   throws before all three settled (the workspace's failure ends it at once).
 * @throws {ChangelogSyncError} as {@link pull}, but `E_LOCKED`.
 */
export async function pullLoaded(options: PullOptions & { reads: ServiceReads }, state: SyncState): Promise<PullResult> {
  const { contentDir, stateDir, reads, dryRun = false } = options;
  // The binding is checked before anything is written. When the reads fail, the
  // workspace's failure is the one reported (it says most).
  const service = reads.workspace.then(async (workspace) => [workspace, await reads.entries, await reads.tags] as [Workspace, RemoteEntry[], Tag[]]);
  service.catch(() => undefined);
  // A pull killed after writing files and before saving the state left what it wrote in
  // its write-ahead log: the files that have exactly that text are pull's (write-ahead-log.ts).
  const ahead = applyPullAhead(stateDir, state, (rel) => readMirrorFile(contentDir, rel)?.hash);
  // While the service answers: read and hash every file the state knows (in slices, so
  // that the responses keep flowing in).
  const local = new Map<string, LocalFile | null>();
  let n = 0;
  for (const rec of Object.values(state.entries)) {
    local.set(rec.file, readMirrorFile(contentDir, rec.file));
    if (++n % 500 === 0) await setImmediate();
  }
  const [workspace, remote, tags] = await service;
  await assertWorkspaceBinding(contentDir, workspace);
  assertPruneAllowed(state, remote, options);

  const result: PullResult = {
    workspace: { identifier: workspace.identifier, name: workspace.name },
    remote: remote.length,
    created: [],
    updated: [],
    renamed: [],
    restored: [],
    adopted: [],
    unchanged: 0,
    conflicts: [],
    localEdits: [],
    remoteGone: [],
    failed: [],
    problems: [],
    repaired: [],
    bound: [],
    slugConflicts: [],
    // Odd service data is mirrored, with a note (remote-data.ts): a warning, never a failure.
    notes: [...titleNotes(remote), ...remoteNotes(remote)],
    writes: [],
    media: emptyMediaReport(),
    dryRun,
  };

  // The entries folder is listed once: for temporary files a killed run left, and for entry files.
  const names = await listEntriesDir(contentDir);
  if (!dryRun) {
    result.writes.push(...(await removeLeftoverTempFiles(contentDir, stateDir, names)));
  }

  // Files the state does not know: read them for identifiers (a fresh clone, a push
  // without state, a killed pull); their paths are taken either way, so pull never
  // overwrites them. Before anything is written: two files with one identifier repaired,
  // the push journal settled, local files' own entries adopted (recovery.ts).
  const known = new Set(Object.values(state.entries).map((e) => e.file));
  const present = new Set(names.map((n) => `${ENTRIES_DIR}/${n}`));
  const { repairs, left } = repairDuplicates({ stateDir, state, unknown: await readEntryFiles(contentDir, (await listEntryFiles(contentDir, names)).filter((f) => !known.has(f))), exists: (rel) => present.has(rel), remote, previous: ahead, dryRun });
  result.repaired = repairs;
  for (const r of repairs) if (r.action !== 'rebound') result.writes.push(r.file, ...(r.parkedAs ? [`state:${r.parkedAs}`] : []));
  let stateChanged = repairs.length > 0 || ahead.size > 0;
  const found = new Map<string, EntryFile>();
  // Identifiers in files that do not parse: their entries are this repository's already
  // (push reads them the same way, push-plan.ts), so they are not mirrored a second time.
  const unreadable = new Set<string>();
  for (const item of left) {
    if (item.error) {
      const id = frontmatterField(item.raw.toString('utf8'), 'identifier');
      const held = id && !state.entries[id] ? `; it carries identifier ${id}, which is not mirrored again until the file is fixed` : '';
      if (held) unreadable.add(id!);
      result.problems.push({ file: item.rel, line: item.error.line, message: stripPath(item.error.message, item.rel) + held });
      continue;
    }
    const id = item.entry?.data.identifier;
    if (id && !state.entries[id] && !found.has(id)) {
      found.set(id, item.entry!);
      state.entries[id] = { file: item.rel, remoteHash: null, localHash: contentHash(item.raw), syncedHash: syncedOf(item.entry!) };
      stateChanged = true;
    }
  }
  const recovered = await recoverBeforePull({ contentDir, stateDir, state, remote: remote.filter((r) => !unreadable.has(r.identifier)), unknown: left, dryRun });
  result.bound = recovered.bound;
  result.slugConflicts = recovered.conflicts;
  result.writes.push(...recovered.writes);
  result.notes.push(...recovered.notes);
  if (recovered.bound.length > 0) stateChanged = true;

  const run = openPullRun(options, state, result, local, stateChanged);

  // 1. Plan: one action per remote entry that needs a file written; none is converted or
  // written before the plan is complete. An unchanged entry with an image not mirrored yet is
  // rewritten to name its copy.
  const media = await MediaRecord.load(stateDir, contentDir);
  const mediaNow = (options.media?.now ?? Date.now)();
  const wantsMedia = options.media?.enabled === false ? undefined : (e: RemoteEntry) => entryWantsMedia(media, e, mediaNow);
  const { actions, seen } = planPull(run, remote, { hold: recovered.hold, unreadable, found, unknownFiles: left.map((f) => f.rel), dirNames: names, wantsMedia });

  // 1b. Images: downloaded, stored and recorded before any file that names them is written.
  const mirrored = await mirrorMedia(media, contentDir, actions, { ...options.media, now: () => mediaNow, dryRun, service: options.media?.service ?? { origin: new URL(options.client.baseUrl).origin, budget: options.client.budget } });
  result.media = mirrored.report;
  result.writes.push(...mirrored.report.written, ...(mirrored.recordSaved ? ['state:media.json'] : []));

  // 2. Convert and write, each file in turn.
  writePull(run, actions, mirrored.maps);

  // 3. Remote entries that are gone.
  for (const [id, rec] of Object.entries(state.entries)) {
    if (seen.has(id)) continue;
    const localFile = run.readLocal(rec.file);
    const raw = localFile?.raw ?? null;
    const edited = isEdited(rec, localFile);
    const title = found.get(id)?.data.title ?? (raw ? frontmatterField(raw.toString('utf8'), 'title') : undefined) ?? rec.file;
    const pruned = Boolean(options.prune) && !edited;
    if (pruned) {
      if (raw !== null) run.remove(rec.file);
      delete state.entries[id];
      run.stateChanged = true;
    }
    result.remoteGone.push({ identifier: id, file: rec.file, title, pruned, edited });
  }

  // 4. Workspace settings, tags, then the state.
  if (!dryRun) {
    failpoint('pull:before-data-write');
    if (await writeJsonIfChanged(join(contentDir, WORKSPACE_DATA_FILE), workspace)) result.writes.push(WORKSPACE_DATA_FILE);
    if (await writeJsonIfChanged(join(contentDir, TAGS_DATA_FILE), tags)) result.writes.push(TAGS_DATA_FILE);
    // Serialising 10,000 entries to find out that nothing changed costs more than the rest
    // of a no-op pull's bookkeeping: the state is only compared when something was booked.
    if (state.workspace !== workspace.identifier) run.stateChanged = true;
    state.workspace = workspace.identifier;
    failpoint('pull:before-state-save');
    if (run.stateChanged && (await saveState(stateDir, state))) result.writes.push('state:state.json');
    failpoint('pull:after-state-save');
    clearPullAhead(stateDir);
  }
  return result;
}

/** A note per remote title with characters no feed can hold: the mirror file drops them (mirror-writer.ts). */
function titleNotes(remote: RemoteEntry[]): string[] {
  const notes: string[] = [];
  for (const e of remote) {
    const bad = e.title.match(XML_INVALID);
    if (!bad) continue;
    const codes = [...new Set(bad)].map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join(', ');
    notes.push(`the title of ${e.identifier} ("${dropXmlInvalid(e.title)}") has ${bad.length} character${bad.length === 1 ? '' : 's'} no feed can hold (${codes}): dropped in the mirror file`);
  }
  return notes;
}
