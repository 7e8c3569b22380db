/**
 * The one atomic file writer: every file the tool writes whole (entry files, state, journal,
 * lock holder, `_data/*.json`, caches, subscriber files) goes to a temporary file beside it and
 * is renamed over the target, so a reader (git, Eleventy, a crash) sees the old file or the
 * new one, never a partial one.
 *
 * Temporary files are `.<name>.<pid>.<n>.tmp` ({@link TEMP_FILE}): hidden, in the target's
 * folder (a rename never crosses file systems), with the writer's pid so that a sweep
 * ({@link removeTempLeftovers}, under the lock, `sync/recovery/temp-files.ts`) removes those of
 * a dead process and never a running one's. A worker thread counts `<n>` from `threadId * 2^32`.
 *
 * Not write-file-atomic: its temporary names carry no pid (a sweep cannot tell a running
 * writer's), and it adds realpath, stat, chown, chmod and a signal listener to every write.
 * Unlike it, this writer replaces a symbolic link at the target, keeps no previous owner, and
 * leaves a signal's leftovers to the sweep; callers never write one path concurrently.
 *
 * Durability: the temporary file is fsynced before the rename by default (the state, the
 * journal and the lock rely on it). Pull's entry files opt out: they mirror the service and
 * are in git; the state written after them is fsynced, and a file a crash left stale is seen
 * as a local edit and reported, never overwritten silently.
 */
import { chmodSync, closeSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { chmod, mkdir, open, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { ChangelogSyncError } from './errors.js';
import { isProcessAlive } from './process-alive.js';

let counter = threadId * 2 ** 32;

/** A temporary file of this writer: `.<target name>.<pid>.<n>.tmp`; groups: the target's name, the pid. */
export const TEMP_FILE = /^\.(.+)\.(\d+)\.\d+\.tmp$/;

/** The temporary file a write of `path` uses (see {@link TEMP_FILE}). */
function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`);
}

/**
 * Removes the temporary files of dead writers from `dir` (a scheduled job would commit them).
 * @param names the names in `dir`, as the caller listed them.
 * @param targets which targets' temporary files to remove, by name.
 * @returns the names removed.
 * @throws {ChangelogSyncError} `E_FILE` when a leftover cannot be removed.
 */
export function removeTempLeftovers(dir: string, names: readonly string[], targets: (name: string) => boolean): string[] {
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_FILE.exec(name);
    if (!m || !targets(m[1]!) || isProcessAlive(Number(m[2]))) continue;
    removeFileSync(join(dir, name));
    removed.push(name);
  }
  return removed;
}

/** Options of {@link writeFileAtomicSync} and {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /**
   * The file must not exist yet (a new name pull claimed): never replaced, under any spelling
   * a case-insensitive file system takes for it. The temporary file is linked to the name;
   * where the file system has no links (FAT, some FUSE mounts), the name is looked up first.
   */
  exclusive?: boolean;
  /** Whether the data is flushed to the disk before the rename. Default true. */
  fsync?: boolean;
  /** Permission bits (`0o600`). Default: {@link writeFileAtomic} keeps the replaced file's; else `0o666` less the umask. */
  mode?: number;
}

/** Options of {@link writeFileAtomic}. */
export interface AsyncAtomicWriteOptions extends Omit<AtomicWriteOptions, 'exclusive'> {
  /**
   * Called once the temporary file exists, before anything is written (a crash test's
   * checkpoint). When it throws, the temporary file is removed and the target left as it was.
   */
  tmpfileCreated?: (tmp: string) => void | Promise<void>;
}

/** chmod errors of a file system that has no Unix modes (FAT, some FUSE mounts): the file keeps the modes it has. */
const NO_MODES = new Set(['ENOSYS', 'ENOTSUP', 'EOPNOTSUPP', 'EPERM', 'EINVAL']);

/** Link errors of a file system that has no hard links: the name is looked up instead. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV', 'EACCES']);

/**
 * Writes `text` (UTF-8) or bytes to `path` atomically (with `exclusive`, by a link that never
 * replaces a file), creating the directory. Synchronous, no stat of the target: for the many
 * files of a pull.
 *
 * @param path absolute path.
 * @throws {ChangelogSyncError} `E_FILE` naming the file (with `exclusive`, also when the name
 *   is taken, the file left as it was); the temporary file is removed.
 */
export function writeFileAtomicSync(path: string, text: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  const tmp = tempPath(path);
  let fd: number | undefined;
  try {
    try {
      fd = openSync(tmp, 'wx', 0o666);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(dir, { recursive: true });
      fd = openSync(tmp, 'wx', 0o666);
    }
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
    if (options.fsync !== false) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    if (options.mode !== undefined) {
      try {
        chmodSync(tmp, options.mode);
      } catch (err) {
        if (!NO_MODES.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
      }
    }
    if (options.exclusive) placeNew(tmp, path);
    else renameSync(tmp, path);
  } catch (cause) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* never created, or already renamed */
    }
    if (cause instanceof ChangelogSyncError) throw cause;
    throw new ChangelogSyncError('E_FILE', `cannot write ${path}: ${(cause as Error).message}`, { file: path, cause, hint: 'check that the directory is writable and the disk is not full' });
  }
}

/**
 * {@link writeFileAtomicSync} without blocking, for single files. The directory must exist.
 *
 * @param path absolute path.
 * @throws the file system's own error (callers name the step: `core/file-error.ts`) or what
 *   `tmpfileCreated` threw. The temporary file is removed and the target left as it was.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AsyncAtomicWriteOptions = {}): Promise<void> {
  const tmp = tempPath(path);
  const replaced = options.mode === undefined ? await stat(path).catch(() => undefined) : undefined;
  const mode = options.mode ?? (replaced && replaced.mode & 0o7777);
  let file: FileHandle | undefined;
  try {
    file = await open(tmp, 'wx', mode ?? 0o666);
    await options.tmpfileCreated?.(tmp);
    await file.writeFile(data);
    if (options.fsync !== false) await file.sync();
    await file.close();
    file = undefined;
    // open's mode is masked by the umask; a file system without modes (FAT via FUSE) keeps its own.
    if (mode !== undefined) await chmod(tmp, mode).catch((err: NodeJS.ErrnoException) => {
      if (!NO_MODES.has(err.code ?? '')) throw err;
    });
    await rename(tmp, path);
  } catch (err) {
    await file?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** Gives the written temporary file `tmp` the name `path`, which no file may have. */
function placeNew(tmp: string, path: string): void {
  try {
    linkSync(tmp, path);
    unlinkSync(tmp);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw existsError(path, err);
    if (!NO_LINKS.has(code)) throw err;
  }
  if (lstatSync(path, { throwIfNoEntry: false })) throw existsError(path);
  renameSync(tmp, path);
}

function existsError(path: string, cause?: unknown): ChangelogSyncError {
  return new ChangelogSyncError('E_FILE', `cannot write ${path}: a file with that name (in some spelling of it) appeared since the folder was listed; it is left as it is`, {
    file: path,
    cause,
    hint: 'run the command again: the name is then known to be taken and another is chosen',
  });
}

/**
 * Removes a file; a file that is already gone is fine.
 * @throws {ChangelogSyncError} `E_FILE` when it exists and cannot be removed.
 */
export function removeFileSync(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch (cause) {
    throw new ChangelogSyncError('E_FILE', `cannot remove ${path}: ${(cause as Error).message}`, { file: path, cause });
  }
}

/**
 * Writes `JSON.stringify(value, null, 2)` and a newline atomically, only when the text changed
 * (state, ledger, media record, workspace data, the build's records).
 * @param path absolute path; its directory is created when missing.
 * @param tmpfileCreated called once the temporary file exists (a failpoint's hook).
 * @returns true when the file was written, false when it already held that text.
 * @throws the file system's error when the directory or the file cannot be written.
 */
export async function writeJsonIfChanged(path: string, value: unknown, tmpfileCreated?: () => void): Promise<boolean> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  try {
    if ((await readFile(path, 'utf8')) === text) return false;
  } catch {
    /* missing: write it */
  }
  await mkdir(join(path, '..'), { recursive: true });
  await writeFileAtomic(path, text, tmpfileCreated ? { tmpfileCreated } : {});
  return true;
}
