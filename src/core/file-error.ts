/**
 * A file system error (`ENOSPC`, `EACCES`, ...) told so a user can act: the file, the step, what
 * the system said, and the fix. A step wraps its error with {@link fileError}; one that escapes
 * unwrapped is still told by path and code (`cli/output/handle-error.ts`).
 */
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { ChangelogSyncError } from './errors.js';

/** A Node.js system error: `code` (`ENOSPC`), and for file calls `syscall` and often `path`. */
export type ErrnoError = Error & { code: string; syscall?: string; path?: string };

/** True for a Node.js system error (an `Error` with a string `code` such as `ENOSPC`). */
export function isErrnoError(err: unknown): err is ErrnoError {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

/** The fix for each system error a file step meets; others get a general one. */
const FIXES: Record<string, string> = {
  ENOSPC: 'the disk is full: free some space and run the same command again',
  EDQUOT: 'the disk quota is used up: free some space and run the same command again',
  EISDIR: 'a directory is where the file should be: move the directory away and run again',
  ENOTDIR: 'a file is where a directory should be: move it away and run again',
  EACCES: 'this user may not write there: check the owner and permissions of the file and of its directory',
  EPERM: 'the operation is not permitted there: check the owner and permissions of the file and of its directory',
  EROFS: 'the file system is read-only: run from a writable checkout',
  EMFILE: 'too many open files: raise the limit (ulimit -n) and run again',
  EIO: 'the disk reported an input/output error: check the disk and run again',
};

/**
 * A file step's error as `E_FILE`, `<file>: <step> failed: <system message>`, with the system
 * error's fix; a {@link ChangelogSyncError} is returned as it is.
 * @param where.file the file (absolute, or relative to the project).
 * @param where.step what the step was doing: `saving the sync state`.
 */
export function fileError(err: unknown, where: { file: string; step: string }): ChangelogSyncError {
  if (err instanceof ChangelogSyncError) return err;
  const code = isErrnoError(err) ? err.code : undefined;
  const said = err instanceof Error ? err.message : String(err);
  // An absolute path as it is (the CLI shows it relative to its working directory, shownPaths), a relative one with `/`.
  const file = isAbsolute(where.file) ? where.file : where.file.split(sep).join('/');
  return new ChangelogSyncError('E_FILE', `${file}: ${where.step} failed: ${said}`, {
    file,
    cause: err,
    hint: (code && FIXES[code]) ?? 'check that the directory exists and is writable, and that the disk is not full',
  });
}

/** A file as the user reads it from the working directory `cwd`: relative with `/` when under it, else as given. */
export function shownFrom(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel.split(sep).join('/');
}

/**
 * A message as the user reads it: every absolute path under the working directory `cwd`
 * (the run's, `Config.cwd`) relative to it (`.changelog/state.json`); others as they are.
 * The engine names files by their absolute paths and knows no working directory: the CLI's
 * output shows them (`cli/output/handle-error.ts`, the build's warnings).
 *
 * @param cwd absolute.
 */
export function shownPaths(text: string, cwd: string): string {
  if (dirname(cwd) === cwd) return text;
  const under = cwd.endsWith(sep) ? cwd : `${cwd}${sep}`;
  // A path starts the text or follows a space, a quote, a bracket or a separator of a list.
  return text.replace(new RegExp(`(?<=^|[\\s'"\`(\\[<=,;])${escapeRegExp(under)}`, 'g'), '');
}

/** `s` matched literally in a regular expression. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs a file step and turns its failure into {@link fileError}.
 * @throws {ChangelogSyncError} `E_FILE` naming `where.file` and `where.step`.
 */
export async function fileStep<T>(where: { file: string; step: string }, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw fileError(err, where);
  }
}
