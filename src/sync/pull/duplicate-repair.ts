/**
 * Two files with one identifier, repaired at the start of a pull (docs/sync.md#sync-state): a
 * pull killed mid-rename leaves both, and the next must not write a third. Before any write:
 *
 * - The file the state knows is kept; when it is gone, the other takes its place (`rebound`).
 * - Any other file with that identifier is removed when it holds nothing of the writer's (its
 *   `syncedHash` is what pull writes for the entry, what the kept file has, or what the state
 *   recorded before the write-ahead log moved the identifier, `write-ahead-log.ts`); otherwise
 *   it is parked in `.changelog/conflicts/` and reported.
 */
import { mkdirSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { RemoteEntry } from '../../service/schemas.js';
import { failpoint } from '../../core/failpoint.js';
import { removeFileSync } from '../../core/atomic-file.js';
import type { IndexedFile } from '../../entry/entry-files.js';
import { syncedOf } from './mirror-reader.js';
import { renderMirrorFile } from './mirror-writer.js';
import { CONFLICTS_DIR, remoteHash, type EntryState, type SyncState } from '../store/state.js';
import { contentHash } from '../../core/hash.js';

/** One repair. */
export interface DuplicateRepair {
  identifier: string;
  /** The file kept (relative to the content directory). */
  kept: string;
  /** The other file. */
  file: string;
  /** `removed`: held nothing of the writer's; `parked`: moved to `parkedAs` (relative to the state directory); `rebound`: the state's file was gone, this one is kept. */
  action: 'removed' | 'parked' | 'rebound';
  parkedAs?: string;
}

/** Options of {@link repairDuplicates}. */
export interface RepairOptions {
  stateDir: string;
  state: SyncState;
  /** Entry files the state does not know, read and parsed. */
  unknown: IndexedFile[];
  /** Whether the file the state knows for an identifier exists. */
  exists: (rel: string) => boolean;
  remote: RemoteEntry[];
  /**
   * State records replaced by pull's write-ahead log this run (`write-ahead-log.ts`): a file
   * with what the previous record describes is the one a killed rename left behind.
   */
  previous?: ReadonlyMap<string, EntryState | undefined>;
  dryRun?: boolean;
}

/**
 * Repairs identifiers carried by two files (see the module description).
 * @returns the repairs, and the unknown files left (those neither removed nor parked).
 */
export function repairDuplicates(options: RepairOptions): { repairs: DuplicateRepair[]; left: IndexedFile[] } {
  const { state, dryRun = false } = options;
  const repairs: DuplicateRepair[] = [];
  const left: IndexedFile[] = [];
  const firstOf = new Map<string, IndexedFile>();
  let byId: Map<string, RemoteEntry> | undefined;
  for (const f of options.unknown) {
    const id = f.entry?.data.identifier;
    const rec = id ? state.entries[id] : undefined;
    if (!id || (!rec && !firstOf.has(id))) {
      if (id) firstOf.set(id, f);
      left.push(f);
      continue;
    }
    byId ??= new Map(options.remote.map((r) => [r.identifier, r]));
    const entry = byId.get(id);
    const rendered = entry ? renderedSynced(entry) : undefined;
    const synced = syncedOf(f.entry!);
    if (rec && !options.exists(rec.file)) {
      // The state's file is gone (a rename killed after removing it): this one takes its place.
      repairs.push({ identifier: id, kept: f.rel, file: rec.file, action: 'rebound' });
      state.entries[id] = rendered === synced && entry
        ? { file: f.rel, remoteHash: remoteHash(entry), localHash: contentHash(f.raw), syncedHash: synced }
        : { ...rec, file: f.rel };
      left.push(f);
      continue;
    }
    const kept = rec?.file ?? firstOf.get(id)!.rel;
    const first = firstOf.get(id)?.entry;
    const keptSynced = rec?.syncedHash ?? (first ? syncedOf(first) : undefined);
    const before = options.previous?.get(id);
    if (synced === rendered || synced === keptSynced || (before !== undefined && (synced === before.syncedHash || contentHash(f.raw) === before.localHash))) {
      failpoint('repair:before-remove');
      if (!dryRun) removeFileSync(f.abs);
      repairs.push({ identifier: id, kept, file: f.rel, action: 'removed' });
      continue;
    }
    const parkedAs = `${CONFLICTS_DIR}/duplicate-${id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60)}-${basename(f.rel)}`;
    failpoint('repair:before-park');
    if (!dryRun) {
      const to = join(options.stateDir, parkedAs);
      mkdirSync(dirname(to), { recursive: true });
      renameSync(f.abs, to);
    }
    failpoint('repair:after-park');
    repairs.push({ identifier: id, kept, file: f.rel, action: 'parked', parkedAs });
  }
  return { repairs, left };
}

/** What pull writes for the entry (its synced hash). */
function renderedSynced(entry: RemoteEntry): string | undefined {
  try {
    return renderMirrorFile(entry).synced;
  } catch {
    return undefined;
  }
}
