/**
 * Pull's plan (docs/sync.md#sync-semantics; the table in `pull.ts`): what to do with each
 * remote entry, decided before any file is converted or written, and the path of each
 * file, so that two entries never share one. A pushed entry never pulled is adopted here
 * (its file is the writer's; only `status` is brought up to date).
 */
import type { RemoteEntry } from '../../service/schemas.js';
import type { ChangelogSyncError } from '../../core/errors.js';
import { failpoint } from '../../core/failpoint.js';
import { entryFileName, parseEntryFile, type EntryFile } from '../../entry/entry-file.js';
import { stripPath } from '../../entry/entry-problems.js';
import { frontmatterField } from '../../entry/frontmatter.js';
import { addFrontmatterFields } from '../../entry/frontmatter-writer.js';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import { FoldedNames, portableNameProblem } from '../../entry/portable-name.js';
import { mirrorTitle } from '../../entry/remote-data.js';
import type { KeptFields } from './mirror-writer.js';
import { isEdited, keptFields, parsedOrNull, syncedOf } from './mirror-reader.js';
import type { PullItem, PullRun } from './pull-run.js';
import { conflictFile, remoteHash, type EntryState } from '../store/state.js';
import { contentHash } from '../../core/hash.js';

/** What to do with one remote entry, decided before anything is converted or written. */
export interface Action {
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
  /** An `update` of an unchanged entry, only to name the mirrored copies of its images (`media-mirror.ts`). */
  mediaOnly?: boolean;
}

/**
 * The paths in use, so two entries never share a file on any file system (`portable-name.ts`):
 * the entries folder's names, the state's files and unknown local files, compared case folded
 * and NFC. A path a rename leaves stays taken this run: its old file goes only after the new one
 * is written.
 */
class PathClaims {
  /** Paths by folded key -> identifiers ('' for a file that is no known entry's); made at the first claim (a no-op pull makes none). */
  private names: FoldedNames | undefined;

  constructor(
    private readonly run: PullRun,
    private readonly unknownFiles: string[],
    private readonly dirNames: readonly string[],
  ) {}

  private get taken(): FoldedNames {
    if (this.names) return this.names;
    const names = (this.names = new FoldedNames());
    const stateFiles = new Set(Object.values(this.run.state.entries).map((e) => e.file));
    for (const n of this.dirNames) if (!stateFiles.has(`${ENTRIES_DIR}/${n}`)) names.add(`${ENTRIES_DIR}/${n}`, '');
    for (const f of this.unknownFiles) names.add(f, '');
    for (const [id, e] of Object.entries(this.run.state.entries)) names.add(e.file, id);
    return names;
  }

  /**
   * Claims a remote entry's file: `current` when it fits the entry's date and slug, else the
   * plain name, the name with the identifier, then numbered ones; never one another file holds
   * under any case or normalisation, never one that is not portable.
   */
  claim(entry: RemoteEntry, current?: string): string {
    const file = this.pathFor(entry, current);
    this.taken.add(file, entry.identifier);
    return file;
  }

  /**
   * The file to restore a deleted mirror file to: its own name, unless another file has
   * taken it since under some spelling (a writer's `Release-notes.md`); then a claimed one.
   */
  restore(entry: RemoteEntry, file: string): string {
    if (this.taken.freeFor(file, entry.identifier)) return file;
    return this.claim(entry);
  }

  private pathFor(entry: RemoteEntry, current?: string): string {
    const base = entry.slug || entry.title;
    const plain = `${ENTRIES_DIR}/${entryFileName(entry.publish_at, base)}`;
    const suffixed = `${ENTRIES_DIR}/${entryFileName(entry.publish_at, base, entry.identifier)}`;
    if (current === plain || current === suffixed) return current;
    const free = (candidate: string) => portableNameProblem(candidate.slice(ENTRIES_DIR.length + 1)) === undefined && this.taken.freeFor(candidate, entry.identifier);
    for (const candidate of [plain, suffixed]) if (free(candidate)) return candidate;
    for (let n = 2; ; n++) {
      const candidate = suffixed.replace(/\.md$/, `-${n}.md`);
      if (free(candidate)) return candidate;
    }
  }
}

/** Remote entries pull leaves alone this run, and the local files found to carry identifiers. */
export interface PlanHolds {
  /** In a slug conflict with a new local file (or bound to one, in a dry run): `recovery.ts`. */
  hold: Set<string>;
  /** Carried by a local file that does not parse: not mirrored again until it is fixed. */
  unreadable: Set<string>;
  /** Local files the state did not know that carry an identifier, by identifier. */
  found: Map<string, EntryFile>;
  /** Local files without a known identifier: their paths are taken. */
  unknownFiles: string[];
  /** True for an entry with an image to mirror (`media-mirror.ts`): an untouched, unchanged one is rewritten. */
  wantsMedia?: (entry: RemoteEntry) => boolean;
  /** Every name in the entries folder (files of any kind): taken, compared case folded (`portable-name.ts`). */
  dirNames?: readonly string[];
}

/**
 * Plans the pull: an action for each remote entry needing a file written; the rest (unchanged,
 * local edits, adoptions) is booked in the run.
 * @returns the actions in plan order, and the identifiers the service listed.
 */
export function planPull(run: PullRun, remote: RemoteEntry[], held: PlanHolds): { actions: Action[]; seen: Set<string> } {
  const { state, result } = run;
  const paths = new PathClaims(run, held.unknownFiles, held.dirNames ?? []);
  const actions: Action[] = [];
  const seen = new Set<string>();
  for (const entry of remote) {
    const id = entry.identifier;
    if (seen.has(id)) continue; // the service listed an entry twice: mirror it once (noted: remote-data.ts)
    seen.add(id);
    if (held.hold.has(id) && !state.entries[id]) continue; // in a slug conflict (or bound, in a dry run)
    if (held.unreadable.has(id) && !state.entries[id]) continue; // its file does not parse: reported above
    const rh = remoteHash(entry);
    const rec = state.entries[id];
    const item = (file: string): PullItem => ({ identifier: id, file, title: mirrorTitle(entry) });

    if (!rec) {
      actions.push({ kind: 'create', entry, rh, file: paths.claim(entry) });
      continue;
    }
    const localFile = run.readLocal(rec.file);
    const raw = localFile?.raw ?? null;
    const edited = isEdited(rec, localFile);

    if (rec.remoteHash === null) {
      // Pushed by us (or found with an identifier), never pulled: adopt the writer's file.
      if (raw === null) {
        actions.push({ kind: 'restore', entry, rh, file: paths.claim(entry) });
        continue;
      }
      const text = raw.toString('utf8');
      const statusNow = held.found.get(id)?.data.status ?? frontmatterField(text, 'status');
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
        run.write(rec.file, newText);
        failpoint('pull:after-adopt-write');
      }
      const adopted: EntryState = { file: rec.file, remoteHash: rh, localHash: contentHash(newText) };
      const parsed = parsedOrNull(rec.file, newText);
      if (parsed) adopted.syncedHash = syncedOf(parsed);
      state.entries[id] = adopted;
      run.stateChanged = true;
      result.adopted.push(item(rec.file));
      continue;
    }

    if (rh === rec.remoteHash) {
      if (raw === null) actions.push({ kind: 'restore', entry, rh, file: paths.restore(entry, rec.file) });
      else if (edited) result.localEdits.push(item(rec.file));
      else if (held.wantsMedia?.(entry)) actions.push({ kind: 'update', entry, rh, file: rec.file, localText: raw.toString('utf8'), keep: keptFields(rec.file, raw), mediaOnly: true });
      else {
        result.unchanged++;
        if (run.existingConflicts.has(conflictFile(id))) run.remove(`state:${conflictFile(id)}`);
      }
      continue;
    }

    // The remote entry changed.
    if (edited) {
      try {
        parseEntryFile(rec.file, raw!);
      } catch (err) {
        // e.g. an alias bomb: say why the file counts as edited
        result.problems.push({ file: rec.file, line: (err as ChangelogSyncError).line, message: stripPath((err as Error).message, rec.file) });
      }
      actions.push({ kind: 'conflict', entry, rh, file: rec.file, localText: raw!.toString('utf8') });
      continue;
    }
    const file = paths.claim(entry, rec.file);
    const action: Action = { kind: 'update', entry, rh, file };
    if (file !== rec.file && raw !== null) action.from = rec.file;
    if (raw !== null) {
      action.localText = raw.toString('utf8');
      action.keep = keptFields(rec.file, raw);
    }
    actions.push(action);
  }
  return { actions, seen };
}
