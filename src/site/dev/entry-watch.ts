/**
 * The preview's watch over the entry files (`dev`): `content/entries/` is watched, and
 * each saved entry file is checked by `check`'s own rules, with `check`'s tag context; every
 * entry file's problems make the page banner (problem-banner.ts). A file can go at any
 * moment (a `git checkout` or `git stash` between the watcher's event and the read): that
 * is an answer (`undefined`: removed), never a rejection, and no event or error of the
 * watcher can end the preview.
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../../core/errors.js';
import { entryProblems, readServiceTagNames, tagContext, type EntryProblem } from '../../entry/entry-problems.js';
import { readEntryFiles, type IndexedFile, type ParseMemo } from '../../entry/entry-files.js';
import type { ParsedEntry } from '../../entry/entry-file.js';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import type { PageProblem, ProblemKind } from '../render/problem-banner.js';

/**
 * The entry files parsed while `dev` runs, by their bytes' hash: each save reads every entry
 * file to check it against the others (and the preview reads them for the site data), but
 * parses only the files that changed. It keeps every version parsed, for the life of the process.
 */
const parsedFiles = new Map<string, ParsedEntry>();
export const parsedEntries: ParseMemo = { get: (hash) => parsedFiles.get(hash), set: (hash, parsed) => void parsedFiles.set(hash, parsed) };

/** True when the file was listed but is gone by the time it is read: removed, not a problem. */
export function vanished(f: IndexedFile): boolean {
  return (f.error?.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Every problem of every entry file, as `check` finds them (with the tag context `check`
 * uses), for the page banner. Paths relative to the content directory. A file removed
 * while they are read is left out (its removal rebuilds the preview again).
 *
 * @param read the entry files as the preview holds them (read again only when saved);
 *   default every entry file, read now.
 */
export async function pageProblems(contentDir: string, read?: readonly IndexedFile[]): Promise<PageProblem[]> {
  const files = (read ?? (await readEntryFiles(contentDir, undefined, parsedEntries))).filter((f) => !vanished(f));
  const tags = tagContext(files, readServiceTagNames(contentDir));
  // A file's problems follow from its bytes and the tag context: checked again only when
  // either changed (every file when the tags in use did).
  const context = JSON.stringify([tags.service, [...tags.uses], [...tags.written]]);
  if (context !== checked.context) checked = { context, problems: new Map() };
  const memo = checked.problems;
  return files.flatMap((f) => {
    const key = `${f.rel}\0${f.hash}`;
    let problems = memo.get(key);
    if (!problems) {
      // The banner's kind (problem-banner.ts): a file that cannot be read or breaks the schema, else its text or a tag.
      const fileKind: ProblemKind | undefined = f.error && (f.error instanceof ValidationError ? 'schema' : 'unreadable');
      problems = entryProblems(f, tags).map((p) => ({ kind: fileKind ?? (p.field === 'tags' ? 'tag' : 'content'), file: f.rel, line: p.line, message: p.message, hint: p.hint, severity: p.severity }));
      memo.set(key, problems);
    }
    return problems;
  });
}

/** The problems {@link pageProblems} found, by file and bytes, for one tag context. */
let checked: { context: string; problems: Map<string, PageProblem[]> } = { context: '', problems: new Map() };

/**
 * The problems of one saved entry file (`rel` under the content directory), as `check`
 * reports them: parse and schema errors, template text, an empty body, near-miss tags
 * (against every entry file and `tags.json`, as `check` compares); `undefined` when the file
 * no longer exists.
 *
 * @param others the entry files as the preview holds them, for the tag context (the saved
 *   file is read now); default every entry file, read now.
 */
export async function savedFileProblems(contentDir: string, rel: string, others?: readonly IndexedFile[]): Promise<EntryProblem[] | undefined> {
  const file = (await readEntryFiles(contentDir, [rel], parsedEntries))[0]!;
  if (vanished(file)) return undefined;
  const all = (others ?? (await readEntryFiles(contentDir, undefined, parsedEntries))).filter((f) => f.rel !== rel && !vanished(f));
  return entryProblems(file, tagContext([...all, file], readServiceTagNames(contentDir)));
}

/** What {@link watchEntryFiles} calls. */
export interface EntryWatchHandlers {
  /**
   * An entry file was saved (added or changed, once the write settled): `rel` under the
   * content directory, e.g. `entries/2026-11-22-x.md`. A rejection goes to `error`.
   */
  saved(rel: string): Promise<void>;
  /** An entry file was removed (or renamed away): `rel` as for `saved`. Default: nothing. */
  removed?(rel: string): void;
  /** The watcher, or `saved`, failed; the watch goes on. */
  error(err: unknown): void;
}

/** A running watch; {@link EntryWatch.close} ends it. */
export interface EntryWatch {
  /** Stops watching, and resolves once every `saved` call under way has settled. */
  close(): Promise<void>;
}

/**
 * Milliseconds a file's events must stop for before it is read: the writes of one save
 * (truncate, then the bytes) are handed on once.
 */
const SETTLE_MS = 20;

/**
 * Watches `contentDir/entries/` for saved and removed entry files (`*.md`), by the names
 * the operating system reports (`fs.watch` on the folder): a file renamed onto a new name
 * is seen as surely as an edit, however busy the process is. (A watcher that reads the
 * folder again to find new names, as chokidar does, can miss a name that arrives while a
 * read is under way on a busy process: a new entry that never reached the preview.)
 * The watch is on when this returns (a file saved from then on is handed on); a folder that
 * does not exist yet is watched from the moment it is made.
 */
export function watchEntryFiles(contentDir: string, handlers: EntryWatchHandlers): EntryWatch {
  const entriesDir = join(contentDir, ENTRIES_DIR);
  const running = new Set<Promise<void>>();
  const timers = new Map<string, NodeJS.Timeout>();
  const settled = (name: string) => {
    timers.delete(name);
    const rel = `${ENTRIES_DIR}/${name}`;
    const run = stat(join(entriesDir, name))
      .then(
        () => handlers.saved(rel),
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
          handlers.removed?.(rel);
        },
      )
      .catch((err: unknown) => handlers.error(err))
      .finally(() => running.delete(run));
    running.add(run);
  };
  const event = (_type: string, name: string | Buffer | null) => {
    const file = name?.toString();
    if (!file?.endsWith('.md')) return;
    clearTimeout(timers.get(file));
    timers.set(file, setTimeout(settled, SETTLE_MS, file));
  };
  let watcher: FSWatcher | undefined;
  let parent: FSWatcher | undefined;
  const start = () => {
    try {
      // Without an `error` listener an error of the watcher would be thrown, and end the preview.
      watcher = watch(entriesDir, event).on('error', (err) => handlers.error(err));
      parent?.close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') handlers.error(err);
      return false;
    }
  };
  if (!start()) {
    try {
      parent = watch(contentDir, (_type, name) => {
        if (name?.toString() === ENTRIES_DIR && !watcher) start();
      }).on('error', (err) => handlers.error(err));
    } catch (err) {
      handlers.error(err);
    }
  }
  return {
    async close() {
      watcher?.close();
      parent?.close();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      await Promise.all(running);
    },
  };
}
