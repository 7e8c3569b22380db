/**
 * The format of the build cache's JSON files (`bodies.json`, entry-memo.ts's `entries.json`,
 * image-store.ts's manifest): a line with the format, the fingerprint and the rest's SHA-256 and
 * length, then one JSON value. Another format or fingerprint, or a failed checksum, is not used,
 * and the reason is said. Written atomically without an fsync (a torn file fails its checksum and
 * the build renders again), and not at all when the build would write what it read.
 */
import { statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { sha256 } from '../../core/hash.js';

/**
 * Why a cache file of another format is not used, told truthfully: its format number and
 * whether a newer or an older changelog-sync wrote it (formats only rise), or that its format
 * is none the tool writes. A format a file names is data: shown only when it is one of ours.
 *
 * @param found the file's `format` (`<name>/<number>`, e.g. `changelog-sync-build-cache/1`).
 * @param expected the format this version reads and writes.
 */
export function otherFormatNote(found: unknown, expected: string): string {
  const slash = expected.lastIndexOf('/');
  const name = expected.slice(0, slash);
  const ours = Number(expected.slice(slash + 1));
  const m = typeof found === 'string' && found.startsWith(`${name}/`) ? /^(\d{1,9})$/.exec(found.slice(slash + 1)) : null;
  if (!m) return 'its format is not one changelog-sync writes';
  const theirs = Number(m[1]);
  return `it is format ${theirs}, written by ${theirs > ours ? 'a newer' : 'an older'} changelog-sync (this one reads format ${ours})`;
}

/**
 * The first line of each cache file read and found sound by this process, with the file's
 * size and modification time then: {@link writeCacheFile} does not write the same file again.
 */
const soundFiles = new Map<string, { header: string; size: number; mtimeMs: number }>();

/** Whether `file` is still the file read as `seen` (same size and modification time). */
export function unchangedSince(file: string, seen: { size: number; mtimeMs: number }): boolean {
  const now = statSync(file, { throwIfNoEntry: false });
  return now !== undefined && now.size === seen.size && now.mtimeMs === seen.mtimeMs;
}

/**
 * Reads a cache file of `format`: a missing one is empty with no note; another format or
 * fingerprint, or corrupt, is empty with a note saying why.
 * @param foreign the note for another fingerprint when it is not the build's (the image cache's).
 *   Without it none: the build says once what differed (build-cache.ts `cacheChangeNote`).
 * @returns the rest of the file parsed (`value`: undefined when the file is missing or not used), or why it was not used (`note`: "it is corrupt ...").
 */
export async function readCacheFile(file: string, format: string, fingerprint: string, foreign?: string): Promise<{ value?: unknown; note?: string }> {
  soundFiles.delete(file);
  try {
    const before = statSync(file, { throwIfNoEntry: false });
    if (!before) return {};
    const text = await readFile(file, 'utf8');
    const newline = text.indexOf('\n');
    const header = JSON.parse(newline < 0 ? text : text.slice(0, newline)) as { format?: unknown; fingerprint?: unknown; sha256?: unknown; length?: unknown };
    const rest = newline < 0 ? '' : text.slice(newline + 1);
    if (header.format !== format) return { note: otherFormatNote(header.format, format) };
    if (header.length !== rest.length || header.sha256 !== sha256(rest)) return { note: 'it is corrupt or incomplete (its checksum does not match)' };
    if (header.fingerprint !== fingerprint) return foreign === undefined ? {} : { note: foreign };
    const value = JSON.parse(rest) as unknown;
    soundFiles.set(file, { header: text.slice(0, newline), size: before.size, mtimeMs: before.mtimeMs });
    return { value };
  } catch (err) {
    return { note: `it is corrupt or incomplete (${(err as Error).message})` };
  }
}

/**
 * Writes `value` as a cache file atomically, unless {@link readCacheFile} found it in this process
 * with the same first line and it has not changed since.
 * @param details more fields of the first line, for a reader of the file (`bodies`: how many).
 * @returns whether the file was written.
 * @throws the file system's error.
 */
export async function writeCacheFile(file: string, format: string, fingerprint: string, value: unknown, details: Record<string, unknown> = {}): Promise<boolean> {
  const rest = JSON.stringify(value);
  const header = JSON.stringify({ format, fingerprint, sha256: sha256(rest), length: rest.length, ...details });
  const sound = soundFiles.get(file);
  if (sound?.header === header && unchangedSince(file, sound)) return false;
  soundFiles.delete(file);
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${header}\n${rest}`, { fsync: false });
  return true;
}

/** A map kept in a cache file from one build to the next (`bodies.json`, `entries.json`), opened for one build. */
export interface KeptMap<T> {
  /** The previous build's value for `key`, if any. */
  get(key: string): T | undefined;
  /** Records a value (kept by {@link KeptMap.save}). */
  set(key: string, value: T): void;
  /** Keys found in the previous build's file, and not found, in this build so far. */
  readonly stats: { hits: number; misses: number };
  /** Why the previous file was not used (corrupt, another format), else undefined. */
  readonly note: string | undefined;
  /**
   * Writes the values recorded by this build (only those) atomically.
   * @throws when the folder cannot be written (the build reports it as a warning).
   */
  save(): Promise<void>;
}

/**
 * Opens the kept map `file` for `fingerprint`: missing, of another fingerprint or corrupt, it is
 * empty, with a {@link KeptMap.note} saying why (but for another fingerprint: {@link readCacheFile}).
 * @param kind its format (another one is ignored); the words of its note: the file ("the build
 *   cache"), its values ("rendered bodies"), what the build did without them ("every entry was
 *   rendered again"); the field of its first line that counts the values; the check of a value read.
 */
export async function openKeptMap<T>(file: string, fingerprint: string, kind: { format: string; name: string; values: string; without: string; count: string; isValue(value: unknown): value is T }): Promise<KeptMap<T>> {
  const { value, note: unusable } = await readCacheFile(file, kind.format, fingerprint);
  let note = unusable;
  let previous = new Map<string, T>();
  if (value !== undefined) {
    const entries = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : undefined;
    if (entries?.every(([, v]) => kind.isValue(v))) previous = new Map(entries as Array<[string, T]>);
    else note = `it is corrupt (not a map of ${kind.values})`;
  }
  const current = new Map<string, T>();
  const stats = { hits: 0, misses: 0 };
  return {
    stats,
    note: note && `${kind.name} (${file}) was not used: ${note}; ${kind.without}`,
    get(key) {
      const found = previous.get(key);
      if (found === undefined) stats.misses++;
      else stats.hits++;
      return found;
    },
    set: (key, value) => void current.set(key, value),
    async save() {
      await writeCacheFile(file, kind.format, fingerprint, Object.fromEntries(current), { [kind.count]: current.size });
    },
  };
}
