/**
 * The record of mirrored images, `.changelog/media.json` (docs/sync.md#images), committed with
 * the content: per original image URL, the copy in `content/media/` or why the last download
 * failed. With it a pull that has nothing new fetches and writes nothing, and the service's
 * URL is kept for every image the Markdown names by its copy.
 *
 * ```json
 * { "version": 1, "media": {
 *   "https://img.example.com/a.png": { "file": "3f1d...e9.png" },
 *   "https://img.example.com/gone.png": { "failed": "HTTP 404", "at": "2026-11-25T17:00:00.000Z" } } }
 * ```
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { MEDIA_COPY, MEDIA_DIR } from '../../convert/media-refs.js';
import { writeJsonIfChanged } from '../../core/atomic-file.js';
import { readJsonFile } from '../store/state-format.js';

/** The record's file name, in the state directory. */
const MEDIA_RECORD_FILE = 'media.json';

/** A failed image is tried again on the first pull this long after the failure: a day, in ms. */
const MEDIA_RETRY_MS = 86_400_000;

/** What the record knows of one image URL. */
export type MediaEntry =
  /** Mirrored: the copy's name in `content/media/` (`<sha256>.<ext>`). */
  | { file: string; failed?: undefined; at?: undefined }
  /** Not mirrored: why, and when (ISO 8601). */
  | { failed: string; at: string; file?: undefined };

/** The record, loaded; changes are saved by {@link MediaRecord.save}. */
export class MediaRecord {
  #dirty = false;

  /** @param entries original URL -> entry (no prototype: a URL is data). */
  private constructor(
    private readonly stateDir: string,
    private readonly contentDir: string,
    private readonly entries: Record<string, MediaEntry>,
  ) {}

  /**
   * Loads the record (empty when absent), dropping malformed entries (their images are fetched again).
   * @throws {ChangelogSyncError} `E_FILE` when the file exists and is not a record.
   */
  static async load(stateDir: string, contentDir: string): Promise<MediaRecord> {
    const path = join(stateDir, MEDIA_RECORD_FILE);
    const hint = 'restore it from git (git checkout -- <file>), or delete it: the next pull downloads the images again';
    const json = ((await readJsonFile(path, hint)) ?? { version: 1, media: {} }) as { version?: unknown; media?: unknown } | null;
    if (json?.version !== 1 || typeof json.media !== 'object' || json.media === null || Array.isArray(json.media)) {
      throw new ChangelogSyncError('E_FILE', `${path}: not a changelog-sync media record (version 1)`, { file: path, hint });
    }
    const entries = Object.create(null) as Record<string, MediaEntry>;
    for (const [url, e] of Object.entries(json.media as Record<string, Partial<MediaEntry> | null>)) {
      if (typeof e?.file === 'string' && MEDIA_COPY.test(e.file)) entries[url] = { file: e.file };
      else if (typeof e?.failed === 'string' && typeof e.at === 'string') entries[url] = { failed: e.failed, at: e.at };
    }
    return new MediaRecord(stateDir, contentDir, entries);
  }

  /** The copy of a URL (its name in `content/media/`) when it is recorded and the file is there. */
  copyOf(url: string): string | undefined {
    const file = this.entries[url]?.file;
    return file !== undefined && existsSync(join(this.contentDir, MEDIA_DIR, file)) ? file : undefined;
  }

  /**
   * Whether a pull should download the URL: no copy (never tried, or gone), or a failure older than {@link MEDIA_RETRY_MS}.
   * @param now ms since the epoch.
   */
  wants(url: string, now: number): boolean {
    const e = this.entries[url];
    if (!e) return true;
    if (e.file !== undefined) return this.copyOf(url) === undefined;
    const at = Date.parse(e.at);
    return !(at <= now && now - at < MEDIA_RETRY_MS);
  }

  /** Records a copy. */
  mirrored(url: string, file: string): void {
    if (this.entries[url]?.file === file) return;
    this.entries[url] = { file };
    this.#dirty = true;
  }

  /** Records a failure (a URL that has a copy keeps it). */
  failed(url: string, reason: string, now: number): void {
    if (this.copyOf(url) !== undefined) return;
    this.entries[url] = { failed: reason, at: new Date(now).toISOString() };
    this.#dirty = true;
  }

  /**
   * Saves the record atomically when something changed (sorted by URL, so that it diffs cleanly).
   * @returns true when the file was written.
   */
  async save(): Promise<boolean> {
    if (!this.#dirty) return false;
    const media = Object.fromEntries(Object.entries(this.entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    // Clean before the write: a change made while it is under way marks the record dirty again.
    this.#dirty = false;
    try {
      return await writeJsonIfChanged(join(this.stateDir, MEDIA_RECORD_FILE), { version: 1, media });
    } catch (err) {
      this.#dirty = true;
      throw err;
    }
  }
}
