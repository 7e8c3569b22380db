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
 * is written before the whole plan is known. Conversion runs on worker threads
 * for large pulls (`convert-pool.ts`) once the plan is complete; each file is written
 * atomically as soon as its text is ready. The state is saved last.
 *
 * @module
 */
import { join } from 'node:path';
import type { ChangelogClient } from '../api/client.js';
import type { ChangelogSyncError } from '../errors.js';
import type { RemoteEntry, Tag, Workspace } from '../api/schemas.js';
import { removeFileSync, writeFileAtomicSync } from './atomic-file.js';
import { removeLeftoverTempFiles } from './temp-files.js';
import { entryFileName, parseEntryFile, type EntryFile } from './entry-file.js';
import { brokenFileField, quickField } from './frontmatter.js';
import { addFrontmatterFields } from './frontmatter-writer.js';
import { failpoint } from '../failpoint.js';
import { isEdited, keptFields, listConflictFiles, parsedOrNull, readMirrorFile, syncedOf, type LocalFile } from './mirror-read.js';
import { repairDuplicates, type DuplicateRepair } from './duplicate-repair.js';
import { stripPath } from './entry-problems.js';
import { dropXmlInvalid, XML_INVALID } from '../xml-chars.js';
import { acquireLock } from './lock.js';
import { assertPruneAllowed } from './prune-guard.js';
import { recoverBeforePull, type BoundFile, type SlugConflict } from './recovery.js';
import { applyPullAhead, clearPullAhead, openPullAhead } from './pull-ahead.js';
import { ENTRIES_DIR, listEntriesDir, listEntryFiles, readEntryFiles } from './local-index.js';
import type { KeptFields, MirrorJob, MirrorOutcome } from './mirror-file.js';
import { RenderQueue, type RenderOptions } from './convert-pool.js';
import { startServiceReads, type ServiceReads } from './service-reads.js';
import { conflictFile, contentHash, loadState, remoteHash, saveState, writeJsonIfChanged, type EntryState, type SyncState } from './state.js';
import { assertWorkspaceBinding, TAGS_DATA_FILE, WORKSPACE_DATA_FILE } from './workspace-binding.js';

/** Options of {@link pull}. */
export interface PullOptions {
  client: ChangelogClient;
  contentDir: string;
  stateDir: string;
  /** Remove files whose remote entry is gone (never a locally edited one); see `prune-guard.ts`. */
  prune?: boolean;
  /** Prune even an empty listing, or more than a tenth of the mirror. */
  force?: boolean;
  /** The service reads, when the caller sent them already ({@link startServiceReads}); default: sent first thing. */
  reads?: ServiceReads;
  /** Compute and return the plan; write nothing, convert nothing. */
  dryRun?: boolean;
  /** Called as each converted entry is settled: `done` of `total` (for a progress bar). */
  onConverted?: (done: number, total: number) => void;
  /** How conversion is spread over threads (tests, benchmarks); default see `convert-pool.ts`. */
  render?: RenderOptions;
}

/** One file-level outcome of a pull. */
export interface PullItem {
  identifier: string;
  /** Path relative to the content directory (`entries/...`). */
  file: string;
  title: string;
  /** For renames: the previous path. */
  from?: string;
}

/** A local file pull could not read (reported; the file is left alone). */
export interface PullProblem {
  file: string;
  line?: number;
  message: string;
}

/** What a pull did (or, with `dryRun`, would do). */
export interface PullResult {
  workspace: { identifier: string; name: string };
  /** Remote entries seen. */
  remote: number;
  created: PullItem[];
  updated: PullItem[];
  renamed: PullItem[];
  restored: PullItem[];
  adopted: PullItem[];
  unchanged: number;
  /** Remote changed and local edited: local kept, remote copy in `conflictFile` (relative to the state directory). */
  conflicts: Array<PullItem & { conflictFile: string }>;
  /** Local edited, remote unchanged: cannot be pushed (no update operation). */
  localEdits: PullItem[];
  /** In the state, gone from the service. `pruned`: the file was (or would be) removed. */
  remoteGone: Array<PullItem & { pruned: boolean; edited: boolean }>;
  /** Remote entries that could not be converted: their files are left as they were; the next pull tries again. */
  failed: Array<PullItem & { reason: string }>;
  /** Local files without a known identifier that could not be parsed (reported, left alone). */
  problems: PullProblem[];
  /** Identifiers carried by two files, repaired before anything else (`duplicate-repair.ts`). */
  repaired: DuplicateRepair[];
  /** Local files bound to their existing remote entry instead of mirroring it (`recovery.ts`): identifiers written back. */
  bound: BoundFile[];
  /** Remote entries with a local new file's slug and another title: not mirrored, the file not sent. */
  slugConflicts: SlugConflict[];
  /** Things the user should know about the service's data, e.g. characters dropped from a title. */
  notes: string[];
  /**
   * Every file written or removed: relative to the content directory, or `state:<path>`
   * inside the state directory. Empty when nothing changed.
   */
  writes: string[];
  /** Worker threads the conversion ran on; 0 when it ran inline. */
  threads: number;
  dryRun: boolean;
}

/** What to do with one remote entry, decided before anything is converted or written. */
interface Action {
  kind: 'create' | 'update' | 'restore' | 'conflict';
  entry: RemoteEntry;
  /** {@link remoteHash} of the entry. */
  rh: string;
  /** Target, relative to the content directory (for `conflict`: the local file). */
  file: string;
  /** The previous path, when the file moves. */
  from?: string;
  /** The local file's text, when there is one (to skip identical rewrites). */
  localText?: string;
  keep?: KeptFields;
}

/**
 * Pulls the workspace into the content directory.
 *
 * @throws {ChangelogSyncError} `E_WORKSPACE_MISMATCH` when the content directory mirrors
 *   another workspace; `E_LOCKED` when another process (a push) holds the content
 *   directory; `E_FILE` for an unreadable state; any client error (`E_AUTH`,
 *   `E_NETWORK`, ...) before anything is written.
 */
export async function pull(options: PullOptions): Promise<PullResult> {
  const { client, stateDir, dryRun = false } = options;
  // The three reads go out at once (or went out already); the binding is checked before
  // anything is written. When they fail, the workspace's failure is the one reported (it says most).
  const reads = options.reads ?? startServiceReads(client);
  const service = reads.workspace.then(async (workspace) => [workspace, await reads.entries, await reads.tags] as [Workspace, RemoteEntry[], Tag[]]);
  service.catch(() => undefined);
  // The content directory's lock (push takes it too): a pull and a push at once would
  // both write the state.
  const lock = dryRun ? undefined : await acquireLock(stateDir, 'pull');
  try {
    const state = await loadState(stateDir);
    return await pullWith(options, state, service);
  } finally {
    await lock?.release();
  }
}

async function pullWith(
  options: PullOptions,
  state: SyncState,
  service: Promise<[Workspace, RemoteEntry[], Tag[]]>,
): Promise<PullResult> {
  const { contentDir, stateDir, dryRun = false } = options;
  // A pull killed after writing files and before saving the state left what it wrote in
  // its write-ahead log: the files that have exactly that text are pull's (pull-ahead.ts).
  const ahead = applyPullAhead(stateDir, state, (rel) => readMirrorFile(contentDir, rel)?.hash);
  // While the service answers: read and hash every file the state knows (in slices, so
  // that the responses keep flowing in).
  const local = new Map<string, LocalFile | null>();
  let n = 0;
  for (const rec of Object.values(state.entries)) {
    local.set(rec.file, readMirrorFile(contentDir, rec.file));
    if (++n % 500 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const [workspace, remote, tags] = await service;
  await assertWorkspaceBinding(contentDir, workspace);
  let stateChanged: boolean;
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
    notes: titleNotes(remote),
    writes: [],
    threads: 0,
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
  const { repairs, left } = await repairDuplicates({ contentDir, stateDir, state, unknown: await readEntryFiles(contentDir, (await listEntryFiles(contentDir, names)).filter((f) => !known.has(f))), exists: (rel) => present.has(rel), remote, previous: ahead.previous, dryRun });
  result.repaired = repairs;
  for (const r of repairs) if (r.action !== 'rebound') result.writes.push(r.file, ...(r.parkedAs ? [`state:${r.parkedAs}`] : []));
  stateChanged = repairs.length > 0 || ahead.previous.size > 0;
  const unknownFiles = left.map((f) => f.rel);
  const found = new Map<string, EntryFile>();
  // Identifiers in files that do not parse: their entries are this repository's already
  // (push reads them the same way, push-plan.ts), so they are not mirrored a second time.
  const unreadable = new Set<string>();
  for (const item of left) {
    if (item.error) {
      const id = brokenFileField(item.raw, 'identifier');
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

  // Paths in use, so that two entries never share a file.
  const taken = new Map<string, string>(); // file -> identifier ('' for a local file without one)
  for (const f of unknownFiles) taken.set(f, '');
  for (const [id, e] of Object.entries(state.entries)) taken.set(e.file, id);
  const pathFor = (entry: RemoteEntry, current?: string): string => {
    const base = entry.slug || entry.title;
    const plain = `${ENTRIES_DIR}/${entryFileName(entry.publish_at, base)}`;
    const suffixed = `${ENTRIES_DIR}/${entryFileName(entry.publish_at, base, entry.identifier)}`;
    if (current === plain || current === suffixed) return current;
    for (const candidate of [plain, suffixed]) {
      const owner = taken.get(candidate);
      if (owner === undefined || owner === entry.identifier) return candidate;
    }
    for (let n = 2; ; n++) {
      const candidate = suffixed.replace(/\.md$/, `-${n}.md`);
      const owner = taken.get(candidate);
      if (owner === undefined || owner === entry.identifier) return candidate;
    }
  };
  // A path a rename leaves stays taken for this run: its old file is removed only after
  // the new one is written, so no other entry may be written there meanwhile.
  const claim = (file: string, id: string) => taken.set(file, id);
  const readLocal = (rel: string): LocalFile | null => (local.has(rel) ? local.get(rel)! : readMirrorFile(contentDir, rel));
  const existingConflicts = listConflictFiles(stateDir);

  // 1. Plan: one action per remote entry that needs a file written. Each action's file
  // is queued as it is planned; none is rendered or written before the plan is complete.
  const actions: Action[] = [];
  const queue = new RenderQueue(options.render);
  const plan = (a: Action): void => {
    actions.push(a);
    if (!dryRun) queue.add(jobOf(a));
  };
  function jobOf(a: Action): MirrorJob {
    const job: MirrorJob = { entry: a.entry, path: a.kind === 'conflict' ? absolute(`state:${conflictFile(a.entry.identifier)}`) : absolute(a.file) };
    if (a.keep) job.keep = a.keep;
    if (a.kind === 'conflict') {
      job.current = 'read';
      job.local = a.localText;
    } else if (a.localText !== undefined && !a.from) job.current = a.localText;
    return job;
  }
  const seen = new Set<string>();
  for (const entry of remote) {
    const id = entry.identifier;
    if (seen.has(id)) continue; // the service listed an entry twice: mirror it once
    seen.add(id);
    if (recovered.hold.has(id) && !state.entries[id]) continue; // in a slug conflict (or bound, in a dry run)
    if (unreadable.has(id) && !state.entries[id]) continue; // its file does not parse: reported above
    const rh = remoteHash(entry);
    const rec = state.entries[id];
    const item = (file: string): PullItem => ({ identifier: id, file, title: entry.title });

    if (!rec) {
      const file = pathFor(entry);
      claim(file, id);
      plan({ kind: 'create', entry, rh, file });
      continue;
    }
    const localFile = readLocal(rec.file);
    const raw = localFile?.raw ?? null;
    const edited = isEdited(rec, localFile);

    if (rec.remoteHash === null) {
      // Pushed by us (or found with an identifier), never pulled: adopt the writer's file.
      if (raw === null) {
        const file = pathFor(entry);
        claim(file, id);
        plan({ kind: 'restore', entry, rh, file });
        continue;
      }
      const text = raw.toString('utf8');
      const statusNow = found.get(id)?.data.status ?? quickField(text, 'status');
      let newText = text;
      if (statusNow !== entry.status) {
        try {
          newText = addFrontmatterFields(rec.file, text, { status: entry.status });
        } catch (err) {
          result.problems.push({ file: rec.file, line: 1, message: stripPath((err as Error).message, rec.file) });
        }
      }
      if (newText !== text) {
        failpoint('pull:before-adopt-write');
        write(rec.file, newText);
        failpoint('pull:after-adopt-write');
      }
      const adopted: EntryState = { file: rec.file, remoteHash: rh, localHash: contentHash(newText) };
      const parsed = parsedOrNull(rec.file, newText);
      if (parsed) adopted.syncedHash = syncedOf(parsed);
      state.entries[id] = adopted;
      stateChanged = true;
      result.adopted.push(item(rec.file));
      continue;
    }

    if (rh === rec.remoteHash) {
      if (raw === null) plan({ kind: 'restore', entry, rh, file: rec.file });
      else if (edited) result.localEdits.push(item(rec.file));
      else {
        result.unchanged++;
        if (existingConflicts.has(conflictFile(id))) remove(`state:${conflictFile(id)}`);
      }
      continue;
    }

    // The remote entry changed.
    if (edited) {
      const unreadable = parseProblem(rec.file, raw); // e.g. an alias bomb: say why the file counts as edited
      if (unreadable) result.problems.push(unreadable);
      plan({ kind: 'conflict', entry, rh, file: rec.file, localText: raw!.toString('utf8') });
      continue;
    }
    const file = pathFor(entry, rec.file);
    claim(file, id);
    const action: Action = { kind: 'update', entry, rh, file };
    if (file !== rec.file && raw !== null) action.from = rec.file;
    if (raw !== null) {
      action.localText = raw.toString('utf8');
      action.keep = keptFields(rec.file, raw);
    }
    plan(action);
  }

  // 2. Convert and write: in worker threads for large pulls, each file as soon as it is ready.
  const itemOf = (a: Action): PullItem => ({ identifier: a.entry.identifier, file: a.file, title: a.entry.title });
  if (dryRun) {
    for (const a of actions) record(a, null);
  } else {
    failpoint('pull:after-plan');
    let converted = 0;
    const log = openPullAhead(stateDir);
    const ran = await queue.commit(
      (i, outcome) => {
        options.onConverted?.(++converted, actions.length);
        const a = actions[i]!;
        if (outcome.error !== undefined) result.failed.push({ ...itemOf(a), reason: outcome.error });
        else record(a, outcome);
      },
      (i, localHash, syncedHash) => {
        const a = actions[i]!;
        if (a.kind !== 'conflict') log.write({ identifier: a.entry.identifier, file: a.file, remoteHash: a.rh, localHash, syncedHash });
      },
    ).finally(() => log.close());
    result.threads = ran === 'inline' ? 0 : ran;
  }

  /** Books one action's outcome (`null`: planned in a dry run). */
  function record(a: Action, outcome: MirrorOutcome | null): void {
    const id = a.entry.identifier;
    const item = itemOf(a);
    if (a.kind === 'conflict' && outcome?.matchesLocal) {
      // The writer's file already is the remote version: the conflict is resolved.
      result.unchanged++;
      state.entries[id] = { file: a.file, remoteHash: a.rh, localHash: outcome.hash!, syncedHash: outcome.synced! };
      stateChanged = true;
      if (existingConflicts.has(conflictFile(id))) remove(`state:${conflictFile(id)}`);
      return;
    }
    if (a.kind === 'conflict') {
      const rel = conflictFile(id);
      if (!outcome || outcome.written) result.writes.push(`state:${rel}`);
      result.conflicts.push({ ...item, conflictFile: rel });
      return;
    }
    if (outcome && !outcome.written) {
      result.unchanged++; // the new version renders to the file as it is (or the writer already took it over)
    } else {
      result.writes.push(a.file);
      if (a.from) {
        failpoint('pull:mid-rename');
        remove(a.from);
        failpoint('pull:after-rename');
      }
      if (a.kind === 'create') result.created.push(item);
      else if (a.kind === 'restore') result.restored.push(item);
      else if (a.from) result.renamed.push({ ...item, from: a.from });
      else result.updated.push(item);
    }
    if (outcome) {
      state.entries[id] = { file: a.file, remoteHash: a.rh, localHash: outcome.hash!, syncedHash: outcome.synced! };
      stateChanged = true;
    }
    if (existingConflicts.has(conflictFile(id))) remove(`state:${conflictFile(id)}`);
  }

  function absolute(rel: string): string {
    return rel.startsWith('state:') ? join(stateDir, rel.slice(6)) : join(contentDir, rel);
  }
  /** Writes a file (a `state:` path is inside the state directory). */
  function write(rel: string, text: string): void {
    result.writes.push(rel);
    if (!dryRun) writeFileAtomicSync(absolute(rel), text);
  }
  function remove(rel: string): void {
    result.writes.push(rel);
    if (!dryRun) removeFileSync(absolute(rel));
  }

  // 3. Remote entries that are gone.
  for (const [id, rec] of Object.entries(state.entries) as Array<[string, EntryState]>) {
    if (seen.has(id)) continue;
    const localFile = readLocal(rec.file);
    const raw = localFile?.raw ?? null;
    const edited = isEdited(rec, localFile);
    const title = found.get(id)?.data.title ?? (raw ? quickField(raw.toString('utf8'), 'title') : undefined) ?? rec.file;
    const pruned = Boolean(options.prune) && !edited;
    if (pruned) {
      if (raw !== null) remove(rec.file);
      delete state.entries[id];
      stateChanged = true;
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
    if (state.workspace !== workspace.identifier) stateChanged = true;
    state.workspace = workspace.identifier;
    failpoint('pull:before-state-save');
    if (stateChanged && (await saveState(stateDir, state))) result.writes.push('state:state.json');
    failpoint('pull:after-state-save');
    clearPullAhead(stateDir);
  }
  return result;
}

/** Why a local file does not parse, as a problem; undefined when it parses (or is missing). */
function parseProblem(rel: string, raw: Buffer | null): PullProblem | undefined {
  if (raw === null) return undefined;
  try {
    parseEntryFile(rel, raw);
    return undefined;
  } catch (err) {
    return { file: rel, line: (err as ChangelogSyncError).line, message: stripPath((err as Error).message, rel) };
  }
}

/** A note per remote title with characters no feed can hold: the mirror file drops them (mirror-file.ts). */
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
