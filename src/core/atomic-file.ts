/**
 * Atomic writes of many mirror files: each file is written to a temporary file beside it
 * and renamed over the target, so a reader (git, Eleventy, a crash) sees the old file or
 * the new one, never a partial one.
 *
 * write-file-atomic does the same for single files (state, journal, data files), but
 * costs 0.3-0.7 ms per file on top of the write (realpath, stat, chmod, a signal-exit
 * listener per call): 3-7 s for a pull of 10,000 entries. Here it is four system calls.
 * Entry files are not fsynced one by one (that alone takes ~7 s for 10,000 files on the
 * benchmark machine): they mirror the service and are in git; the state written after
 * them is fsynced, and a file a crash left stale is seen as a local edit and reported,
 * never overwritten silently.
 *
 * @module
 */
import { closeSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { ChangelogSyncError } from './errors.js';
import { isProcessAlive } from './process-alive.js';

let counter = 0;

/** Temporary files of {@link writeFileAtomicSync}: `.<name>.<pid>.<n>.tmp`. */
const TEMP_FILE = /^\..+\.(\d+)\.\d+\.tmp$/;

/**
 * Removes the temporary files a process killed mid-write left in `dir` (those of running
 * processes are left alone): a scheduled job would otherwise commit them.
 * @param names the names in `dir`, when the caller has listed it already.
 * @returns the names removed.
 */
export function removeTempLeftovers(dir: string, names?: readonly string[]): string[] {
  if (!names) {
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_FILE.exec(name);
    if (!m || isProcessAlive(Number(m[1]))) continue;
    removeFileSync(join(dir, name));
    removed.push(name);
  }
  return removed;
}

/** Options of {@link writeFileAtomicSync}. */
export interface AtomicWriteOptions {
  /**
   * The file must not exist yet (a new name pull claimed): it is never replaced, under any
   * spelling a case-insensitive file system takes for it. The temporary file is linked to
   * the name (the link fails when any file has it); where the file system has no links
   * (FAT, some FUSE mounts), the name is looked up first (a case-insensitive file system
   * finds it under any case) and only then renamed.
   */
  exclusive?: boolean;
}

/** Link errors of a file system that has no hard links: the name is looked up instead. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV', 'EACCES']);

/**
 * Writes `text` (UTF-8), or bytes, to `path` atomically: temporary file in the same
 * directory, then rename (or, with `exclusive`, a link that never replaces a file). Creates
 * the directory when missing.
 *
 * @param path absolute path.
 * @throws {ChangelogSyncError} `E_FILE` naming the file (with `exclusive`: also when a file
 *   has the name already, the file left as it was); the temporary file is removed.
 */
export function writeFileAtomicSync(path: string, text: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${++counter}.tmp`);
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
    closeSync(fd);
    fd = undefined;
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
  if (exists(path)) throw existsError(path);
  renameSync(tmp, path);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
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
 * Writes JSON atomically (temp file, fsync, rename: write-file-atomic), only when the text
 * changed: the sync state, the budget ledger, the media record, the workspace data files pull
 * writes and the build's records (feed dates, site inputs).
 * @param path absolute path; its directory is created when missing.
 * @param value written as `JSON.stringify(value, null, 2)` and a newline.
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
