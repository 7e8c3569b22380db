/**
 * Pull's image mirror (docs/sync.md#images): before a pull's entry files are written, every
 * image they show is downloaded once (`media-fetch.ts`), stored as `content/media/<sha256>.<ext>`
 * and recorded in `.changelog/media.json` (`media-record.ts`); the Markdown names the copy.
 *
 * Crash safety: copies first (atomically), then the record, then the entry files that name
 * them (`pull-write.ts`): no entry file ever names a missing copy, and a copy not yet recorded
 * is found again by its name.
 *
 * A failed download keeps the remote URL, is reported once per URL, recorded with its reason
 * and retried a day later (`MEDIA_RETRY_MS`); it never fails the pull. All downloads share one
 * deadline ({@link MediaOptions.deadlineMs}) so hosts that never answer cannot hold the entries
 * past a job's limit: past it, nothing more starts, the entries keep those remote URLs
 * (reported `deferred`, not recorded). The record is saved as downloads finish, so a job
 * killed at its time limit keeps what was fetched.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { RemoteEntry } from '../../service/schemas.js';
import { sha256 } from '../../core/hash.js';
import { writeFileAtomicSync } from '../../core/atomic-file.js';
import { fetchImage } from './media-fetch.js';
import { DEFAULT_IMAGE_DEADLINE_SECONDS, type Config } from '../../core/config.js';
import { allowsLoopback, GuardedFetcher, type GuardedFetcherOptions } from '../../service/guarded-fetch.js';
import type { ImageBounds } from '../../core/image-bounds.js';
import type { MediaRecord } from './media-record.js';
import { writeQueue } from '../../core/write-queue.js';
import { imageSources, isMirrorable, MEDIA_DIR, mediaReference } from '../../convert/media-refs.js';

/** How pull mirrors images (`PullOptions.media`). */
export interface MediaOptions extends GuardedFetcherOptions {
  /** The largest raster image stored. Default `DEFAULT_IMAGE_BOUNDS` (core/image-bounds.ts). */
  bounds?: ImageBounds;
  /** False: no image is mirrored (the Markdown keeps the service's URLs). Default true. */
  enabled?: boolean;
  /** Downloads at once. Default 4. */
  concurrency?: number;
  /** The clock, ms since the epoch (tests). Default `Date.now`. */
  now?: () => number;
  /** Time for all the downloads of a pull, in ms. Default 180,000 (`imageDeadlineSeconds` of the configuration). */
  deadlineMs?: number;
}

/** A pull's image options from the configuration; loopback only for a service on loopback, never by content. */
export function configuredMedia(config: Pick<Config, 'imageBounds' | 'imageDeadlineSeconds' | 'baseUrl'>): MediaOptions {
  return { bounds: config.imageBounds, deadlineMs: config.imageDeadlineSeconds * 1000, allowLoopback: allowsLoopback(config.baseUrl) };
}

/** An image that was not downloaded, once per URL. */
export interface MediaFailure {
  /** The URL as the service's content has it. */
  url: string;
  reason: string;
  /** The entries that show it: identifier, title and file. */
  entries: Array<{ identifier: string; title: string; file: string }>;
}

/** What the image mirror of a pull did (`PullResult.media`). */
export interface MediaReport {
  /** Downloads made (each URL at most once); in a dry run, the downloads it would make. */
  fetched: number;
  /** Copies written, relative to the content directory (`media/<sha256>.<ext>`). */
  written: string[];
  /** Images not downloaded: the entries keep the remote URL. */
  failed: MediaFailure[];
  /**
   * Images not downloaded before the deadline ({@link MediaOptions.deadlineMs}): the entries
   * keep the remote URL, nothing is recorded, the next pull tries again. `reason` says so.
   */
  deferred: MediaFailure[];
  /** SVGs stored sanitised: the URL and what was removed. */
  sanitized: Array<{ url: string; removed: string[] }>;
  /** Entry files rewritten only to name the copies of their images (the entry itself unchanged). */
  rewritten: Array<{ identifier: string; title: string; file: string }>;
}

/** An empty report. */
export function emptyMediaReport(): MediaReport {
  return { fetched: 0, written: [], failed: [], deferred: [], sanitized: [], rewritten: [] };
}

/** The mirrorable image URLs of an entry's content. */
function mirrorableSources(entry: RemoteEntry): string[] {
  return imageSources(entry.content).filter(isMirrorable);
}

/** Whether an entry has an image the record wants downloaded (pull-plan.ts then rewrites its file to get the copies). */
export function entryWantsMedia(record: MediaRecord, entry: RemoteEntry, now: number): boolean {
  return mirrorableSources(entry).some((src) => record.wants(src, now));
}

/** One entry file to be written, and the entry it mirrors. */
export interface MediaTarget {
  entry: RemoteEntry;
  /** The file, relative to the content directory (for reports). */
  file: string;
}

/**
 * Downloads, stores and records the images of the entries about to be written, by the deadline
 * whatever the hosts do.
 * @param targets the entries about to be written, in the pull's order.
 * @returns per target (same index): original `src` -> `/media/<file>`, or undefined; the report;
 *   whether the record was saved.
 * @throws {ChangelogSyncError} `E_FILE` when a copy or the record cannot be written: no entry is written then.
 */
export async function mirrorMedia(
  record: MediaRecord,
  contentDir: string,
  targets: MediaTarget[],
  options: MediaOptions & { dryRun?: boolean } = {},
): Promise<{ maps: Array<Record<string, string> | undefined>; report: MediaReport; recordSaved: boolean }> {
  const report = emptyMediaReport();
  let recordSaved = false;
  const now = (options.now ?? Date.now)();
  const sources = targets.map((t) => (options.enabled === false ? [] : mirrorableSources(t.entry)));
  const wanted = new Map<string, MediaTarget[]>();
  sources.forEach((list, i) => {
    for (const src of list) {
      if (!record.wants(src, now)) continue;
      const users = wanted.get(src);
      if (users) users.push(targets[i]!);
      else wanted.set(src, [targets[i]!]);
    }
  });
  report.fetched = wanted.size;
  if (wanted.size > 0 && !options.dryRun) {
    const fetcher = new GuardedFetcher(options);
    const limit = pLimit(options.concurrency ?? 4);
    const deadlineMs = options.deadlineMs ?? DEFAULT_IMAGE_DEADLINE_SECONDS * 1000;
    const deadline = AbortSignal.timeout(deadlineMs);
    const usersOf = (users: MediaTarget[]) => users.map((t) => ({ identifier: t.entry.identifier, title: t.entry.title, file: t.file }));
    // The record is saved as downloads finish, one save at a time (save() writes what the
    // record holds when it runs); after a failure, only at the end.
    let saveError: Error | undefined;
    const save = writeQueue(async () => {
      if (await record.save()) recordSaved = true;
    });
    const saveSoon = (): void => {
      if (saveError === undefined) void save().catch((err: unknown) => (saveError ??= err instanceof Error ? err : new Error(String(err))));
    };
    try {
      await Promise.all(
        [...wanted].map(([src, users]) =>
          limit(async () => {
            const got = deadline.aborted ? { reason: 'not started', stopped: true } : await fetchImage(fetcher, src.trim(), options.bounds, deadline);
            if (got.reason !== undefined) {
              if (got.stopped) {
                report.deferred.push({ url: src, reason: `not fetched within the ${deadlineMs / 1000} s for a pull's images (imageDeadlineSeconds)`, entries: usersOf(users) });
                return;
              }
              record.failed(src, got.reason, now);
              report.failed.push({ url: src, reason: got.reason, entries: usersOf(users) });
              saveSoon();
              return;
            }
            const name = `${sha256(got.bytes)}.${got.type.ext}`;
            const rel = `${MEDIA_DIR}/${name}`;
            if (!existsSync(join(contentDir, rel))) {
              writeFileAtomicSync(join(contentDir, rel), got.bytes, { fsync: false });
              report.written.push(rel);
            }
            if (got.removed.length > 0) report.sanitized.push({ url: src, removed: got.removed });
            record.mirrored(src, name);
            saveSoon();
          }),
        ),
      );
    } finally {
      await fetcher.close();
    }
    // The record before any entry file that names a copy (see the module documentation).
    await save();
    if (saveError !== undefined) throw saveError;
  }
  const byUrl = (a: MediaFailure, b: MediaFailure): number => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);
  report.failed.sort(byUrl);
  report.deferred.sort(byUrl);
  report.written.sort();
  const maps = sources.map((list) => {
    let map: Record<string, string> | undefined;
    for (const src of list) {
      const copy = record.copyOf(src);
      if (copy !== undefined) (map ??= Object.create(null) as Record<string, string>)[src] = mediaReference(copy);
    }
    return map;
  });
  return { maps, report, recordSaved };
}
