/**
 * A pull run (`pull.ts`): its options, its result, and what its parts share: the state
 * being booked, the local files read, and the writes (each recorded in the result).
 */
import { join } from 'node:path';
import type { ChangelogClient } from '../../service/client.js';
import { removeFileSync, writeFileAtomicSync } from '../../core/atomic-file.js';
import type { DuplicateRepair } from './duplicate-repair.js';
import type { MediaOptions, MediaReport } from './media-mirror.js';
import { listConflictFiles, readMirrorFile, type LocalFile } from './mirror-reader.js';
import type { BoundFile, SlugConflict } from '../recovery/recovery.js';
import type { ServiceReads } from '../../service/reads.js';
import type { SyncState } from '../store/state.js';

/** Options of `pull` (`pull.ts`). */
export interface PullOptions {
  client: ChangelogClient;
  contentDir: string;
  stateDir: string;
  /** Remove files whose remote entry is gone (never a locally edited one); see `prune-guard.ts`. */
  prune?: boolean;
  /** Prune even an empty listing, or more than a tenth of the mirror. */
  force?: boolean;
  /** The service reads, when the caller sent them already (`startServiceReads`; the caller cancels them); default: sent first thing, and ended by the pull. */
  reads?: ServiceReads;
  /** Compute and return the plan; write nothing, convert nothing. */
  dryRun?: boolean;
  /** Called as each converted entry is settled: `done` of `total` (for a progress bar). */
  onConverted?: (done: number, total: number) => void;
  /** How images are mirrored into `content/media/` (docs/sync.md#images); default: all of them, with the default limits. */
  media?: MediaOptions;
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
  /** The images mirrored into `content/media/`, and those that could not be (`media-mirror.ts`). */
  media: MediaReport;
  dryRun: boolean;
}

/** What the parts of one pull share. */
export interface PullRun {
  options: PullOptions;
  state: SyncState;
  result: PullResult;
  /** Set once anything is booked in the state: it is saved only then. */
  stateChanged: boolean;
  /** Conflict copies present in the state directory when the pull started. */
  existingConflicts: Set<string>;
  /** A mirror file, from the files read while the service answered, else read now; null when missing. */
  readLocal(rel: string): LocalFile | null;
  /** The absolute path of a file (a `state:` path is inside the state directory). */
  absolute(rel: string): string;
  /** Writes a file atomically and records it (nothing is written in a dry run). */
  write(rel: string, text: string): void;
  /** Removes a file and records it (nothing is removed in a dry run). */
  remove(rel: string): void;
}

/**
 * The run's shared parts.
 * @param local the mirror files already read, by path.
 */
export function openPullRun(options: PullOptions, state: SyncState, result: PullResult, local: Map<string, LocalFile | null>, stateChanged: boolean): PullRun {
  const { contentDir, stateDir, dryRun = false } = options;
  const absolute = (rel: string): string => (rel.startsWith('state:') ? join(stateDir, rel.slice(6)) : join(contentDir, rel));
  return {
    options,
    state,
    result,
    stateChanged,
    existingConflicts: listConflictFiles(stateDir),
    readLocal: (rel) => (local.has(rel) ? local.get(rel)! : readMirrorFile(contentDir, rel)),
    absolute,
    write(rel, text) {
      result.writes.push(rel);
      if (!dryRun) writeFileAtomicSync(absolute(rel), text, { fsync: false });
    },
    remove(rel) {
      result.writes.push(rel);
      if (!dryRun) removeFileSync(absolute(rel));
    },
  };
}
