/**
 * Recovery before a pull writes anything (docs/sync.md#push-guarantees, #sync-state): a remote
 * entry no state knows may be a local file's own (its push was killed before the write-back,
 * or the write-back was lost with a commit), and must not be mirrored as a second file.
 * Against the listing pull reads anyway, before any write:
 *
 * 1. **Journal.** A journal record whose entry is listed (by identifier, else by its slug among
 *    entries no state knows) is bound to its file: identifier, status and slug written back
 *    (`write-back.ts`), the record removed. While that file does not parse, the entry is held
 *    (not mirrored) with a note; push keeps the record until the file is fixed.
 * 2. **Adoption.** A file without `identifier` whose slug (its `slug:`, or derived as push
 *    derives it, `push-plan.ts`) is such an entry's, with the same title (and date, when it
 *    has one), is bound the same way, whether or not push would send it today. The same slug
 *    with another title is a **slug conflict**: reported with both sides, the entry not
 *    mirrored and the file not sent until the writer decides.
 *
 * A bound file is recorded as pushed and never pulled (`remoteHash: null`): the writer's file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RemoteEntry } from '../../service/schemas.js';
import { failpoint } from '../../core/failpoint.js';
import { slugify } from '../../entry/slug.js';
import { readServiceTagNames } from '../../entry/entry-problems.js';
import { Journal } from './journal.js';
import { readEntryFiles, type IndexedFile } from '../../entry/entry-files.js';
import { matchUnclaimed, planLocal } from '../push/push-plan.js';
import type { SyncState } from '../store/state.js';
import { writeBack } from '../push/write-back.js';

/** A local file bound to an existing remote entry instead of mirroring the entry. */
export interface BoundFile {
  identifier: string;
  /** Path relative to the content directory. */
  file: string;
  title: string;
  /** `reconciled`: found through the push journal; `adopted`: by slug and title. */
  how: 'reconciled' | 'adopted';
}

/** A remote entry no state knows whose slug a local file without identifier also has, with another title. */
export interface SlugConflict {
  file: string;
  slug: string;
  title: string;
  remote: { identifier: string; title: string; publish_at?: string | null };
  /** The whole message: both sides and the way out. */
  reason: string;
}

/** What {@link recoverBeforePull} did (or, in a dry run, would do). */
export interface RecoveryResult {
  bound: BoundFile[];
  conflicts: SlugConflict[];
  /** Remote identifiers pull must not mirror as new files this run (bound, or in conflict). */
  hold: Set<string>;
  /** Files written (relative to the content directory). */
  writes: string[];
  /** Bind failures and other things worth saying. */
  notes: string[];
}

/** Options of {@link recoverBeforePull}. */
export interface RecoveryOptions {
  contentDir: string;
  stateDir: string;
  /** The state as pull loaded it; files bound here are recorded in it. */
  state: SyncState;
  /** The listing pull fetched. */
  remote: RemoteEntry[];
  /** The entry files the state does not know, read by pull (a file without identifier is among them). */
  unknown: IndexedFile[];
  dryRun?: boolean;
}

/**
 * Settles the push journal and adopts local files' own entries (see the module description).
 * Reads every entry file only when a local file without identifier may match an entry.
 * @throws {ChangelogSyncError} `E_FILE` for an unreadable journal.
 */
export async function recoverBeforePull(options: RecoveryOptions): Promise<RecoveryResult> {
  const { contentDir, stateDir, state, dryRun = false } = options;
  const out: RecoveryResult = { bound: [], conflicts: [], hold: new Set(), writes: [], notes: [] };
  const strangers = options.remote.filter((r) => !state.entries[r.identifier]);
  const fresh = options.unknown.filter((f) => f.entry && !f.entry.data.identifier);
  if (strangers.length === 0) return out;
  const journal = await Journal.open(stateDir);
  const records = journal.list();
  if (records.length === 0 && fresh.length === 0) return out;
  const freshFiles = new Set(fresh.map((f) => f.rel));
  const unbound = new Map(strangers.map((r) => [r.identifier, r]));
  const bind = async (file: string, title: string, entry: RemoteEntry, slug: string, how: BoundFile['how']): Promise<boolean> => {
    out.hold.add(entry.identifier);
    unbound.delete(entry.identifier);
    freshFiles.delete(file);
    if (!dryRun) {
      try {
        await writeBack(contentDir, file, entry.identifier, entry.status, slug, state);
      } catch (err) {
        out.notes.push(`${file}: is the file of the remote entry ${entry.identifier}, but the identifier could not be written to it (${(err as Error).message}); entry not mirrored, fix the file and run again`);
        return false;
      }
      out.writes.push(file);
    }
    out.bound.push({ identifier: entry.identifier, file, title, how });
    return true;
  };

  // 1. POSTs of a push that did not finish. The entry is found as push finds it
  // (push-settle.ts, findRecord): by identifier, else by slug alone among the entries no file
  // carries. An entry push would match is never mirrored, bound now or not: a mirrored
  // copy would hide it from push, which would then take the POST as lost and send again.
  for (const record of records) {
    const entry = (record.identifier ? unbound.get(record.identifier) : undefined) ?? strangers.find((r) => unbound.has(r.identifier) && r.slug === record.slug);
    if (!entry) continue; // not listed: push decides (it waits for a POST in doubt)
    if (!freshFiles.has(record.file)) {
      // Unreadable (or refused) for now: push keeps the record until the file is fixed.
      if (existsSync(join(contentDir, record.file))) {
        out.hold.add(entry.identifier);
        unbound.delete(entry.identifier);
        out.notes.push(`${record.file}: a POST of an earlier push created ${entry.identifier} from this file, which cannot be bound to it now (it does not parse); the entry is not mirrored: fix the file and run again`);
      }
      continue;
    }
    failpoint('recovery:before-bind');
    if (!(await bind(record.file, record.title, entry, record.slug, 'reconciled'))) continue;
    failpoint('recovery:after-bind');
    if (!dryRun) await journal.remove(record.file);
    failpoint('recovery:after-journal-remove');
  }
  if (fresh.length === 0) return out;

  // 2. Entries created from a file whose write-back and journal were lost.
  const slugs = new Set([...unbound.values()].map((r) => r.slug));
  const mayMatch = fresh.some((f) => freshFiles.has(f.rel) && [f.entry!.data.slug, slugify(f.entry!.data.title)].some((s) => s !== undefined && [...slugs].some((r) => r === s || r.startsWith(`${s}-`))));
  if (!mayMatch) return out;
  // Derived slugs depend on every local file (push-plan.ts): read them all, as push does.
  // Every new file with a slug, refused ones included (an empty body does not make the
  // entry any less the file's own), with the service's tag names exactly as push plans.
  const plan = planLocal(await readEntryFiles(contentDir), readServiceTagNames(contentDir));
  for (const c of plan.slugged) {
    if (!freshFiles.has(c.file)) continue;
    const used = [...unbound.values()].filter((r) => r.slug === c.slug);
    if (used.length === 0) continue;
    const match = matchUnclaimed(c, used);
    if ('adopt' in match) {
      failpoint('recovery:before-adopt');
      await bind(c.file, c.entry.data.title, match.adopt, c.slug, 'adopted');
      failpoint('recovery:after-adopt');
      continue;
    }
    for (const r of used) out.hold.add(r.identifier);
    const r = used[0]!;
    out.conflicts.push({ file: c.file, slug: c.slug, title: c.entry.data.title, remote: { identifier: r.identifier, title: r.title, publish_at: r.publish_at ?? null }, reason: match.reject.reason });
  }
  return out;
}
