/**
 * Pull's writes (docs/sync.md#sync-semantics): once the plan is complete, each planned file
 * is converted and written atomically, one after the other, each after its hashes are in
 * the write-ahead log
 * (`write-ahead-log.ts`); each outcome is booked in the result and the state.
 */
import { failpoint } from '../../core/failpoint.js';
import { writeMirrorJob, type MirrorJob, type MirrorOutcome } from './mirror-writer.js';
import { openPullAhead } from './write-ahead-log.js';
import type { Action } from './pull-plan.js';
import type { PullItem, PullRun } from './pull-run.js';
import { mirrorTitle } from '../../entry/remote-data.js';
import { conflictFile } from '../store/state.js';

/**
 * Converts and writes the planned files (books them only, in a dry run). An entry that
 * cannot be converted is booked in `failed`; the others go on.
 * @param media each action's mirrored images, in plan order (`media-mirror.ts`).
 */
export function writePull(run: PullRun, actions: Action[], media: ReadonlyArray<Record<string, string> | undefined>): void {
  if (run.options.dryRun) {
    for (const a of actions) record(run, a, null);
  } else {
    failpoint('pull:after-plan');
    const log = openPullAhead(run.options.stateDir);
    try {
      actions.forEach((a, i) => {
        const outcome = writeMirrorJob(jobOf(run, a, media[i]), (localHash, syncedHash) => {
          if (a.kind !== 'conflict') log.write({ identifier: a.entry.identifier, file: a.file, remoteHash: a.rh, localHash, syncedHash });
        });
        run.options.onConverted?.(i + 1, actions.length);
        if (outcome.error !== undefined) run.result.failed.push({ ...itemOf(a), reason: outcome.error });
        else record(run, a, outcome);
      });
    } finally {
      log.close();
    }
  }
}

/** The write of an action: where its file goes, what it keeps, what it is compared with. */
function jobOf(run: PullRun, a: Action, media: Record<string, string> | undefined): MirrorJob {
  const job: MirrorJob = { entry: a.entry, path: a.kind === 'conflict' ? run.absolute(`state:${conflictFile(a.entry.identifier)}`) : run.absolute(a.file) };
  if (a.keep) job.keep = a.keep;
  if (media) job.media = media;
  // A file written under a new name never replaces one found there: created, moved, or
  // restored to a name a writer may have used since (a case-insensitive file system included).
  if (a.kind === 'create' || a.kind === 'restore' || a.from !== undefined) job.exclusive = true;
  if (a.kind === 'conflict') {
    job.readCurrent = true;
    job.local = a.localText;
  } else if (a.localText !== undefined && !a.from) job.current = a.localText;
  return job;
}

function itemOf(a: Action): PullItem {
  return { identifier: a.entry.identifier, file: a.file, title: mirrorTitle(a.entry) };
}

/** Books one action's outcome (`null`: planned in a dry run). */
function record(run: PullRun, a: Action, outcome: MirrorOutcome | null): void {
  const { state, result } = run;
  const id = a.entry.identifier;
  const item = itemOf(a);
  if (a.kind === 'conflict' && outcome?.matchesLocal) {
    // The writer's file already is the remote version: the conflict is resolved.
    result.unchanged++;
    state.entries[id] = { file: a.file, remoteHash: a.rh, localHash: outcome.hash, syncedHash: outcome.synced };
    run.stateChanged = true;
    if (run.existingConflicts.has(conflictFile(id))) run.remove(`state:${conflictFile(id)}`);
    return;
  }
  if (a.kind === 'conflict') {
    const rel = conflictFile(id);
    if (!outcome || outcome.written) result.writes.push(`state:${rel}`);
    result.conflicts.push({ ...item, conflictFile: rel });
    return;
  }
  if (a.mediaOnly) {
    // The entry is unchanged: its file was rewritten only to name its images' copies.
    result.unchanged++;
    if (!outcome || outcome.written) {
      result.writes.push(a.file);
      result.media.rewritten.push(item);
    }
  } else if (outcome && !outcome.written) {
    result.unchanged++; // the new version renders to the file as it is (or the writer already took it over)
  } else {
    result.writes.push(a.file);
    if (a.from) {
      failpoint('pull:mid-rename');
      run.remove(a.from);
      failpoint('pull:after-rename');
    }
    if (a.kind === 'create') result.created.push(item);
    else if (a.kind === 'restore') result.restored.push(item);
    else if (a.from) result.renamed.push({ ...item, from: a.from });
    else result.updated.push(item);
  }
  if (outcome) {
    state.entries[id] = { file: a.file, remoteHash: a.rh, localHash: outcome.hash!, syncedHash: outcome.synced! };
    run.stateChanged = true;
  }
  if (run.existingConflicts.has(conflictFile(id))) run.remove(`state:${conflictFile(id)}`);
}
