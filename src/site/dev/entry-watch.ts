/**
 * The preview's watch over the entry files (`dev`): chokidar watches `content/entries/`, and
 * each saved entry file is checked by `check`'s own rules, with `check`'s tag context; every
 * entry file's problems make the page banner (problem-banner.ts). A file can go at any
 * moment (a `git checkout` or `git stash` between the watcher's event and the read): that
 * is an answer (`undefined`: removed), never a rejection, and no event or error of the
 * watcher can end the preview.
 *
 * @module
 */
import { join, relative } from 'node:path';
import { watch } from 'chokidar';
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

/** The banner's kind of a problem of `f` (see {@link ProblemKind}). */
function kindOf(f: IndexedFile, p: EntryProblem): ProblemKind {
  if (f.error) return f.error instanceof ValidationError ? 'schema' : 'unreadable';
  return p.field === 'tags' ? 'tag' : 'content';
}

/** True when the file was listed but is gone by the time it is read: removed, not a problem. */
function vanished(f: IndexedFile): boolean {
  return (f.error?.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Every problem of every entry file, as `check` finds them (with the tag context `check`
 * uses), for the page banner. Paths relative to the content directory. A file removed
 * while they are read is left out (its removal rebuilds the preview again).
 */
export async function pageProblems(contentDir: string): Promise<PageProblem[]> {
  const files = (await readEntryFiles(contentDir, undefined, true, parsedEntries)).filter((f) => !vanished(f));
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
      problems = entryProblems(f, tags).map((p) => ({ kind: kindOf(f, p), file: f.rel, line: p.line, message: p.message, hint: p.hint, severity: p.severity }));
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
 */
export async function savedFileProblems(contentDir: string, rel: string): Promise<EntryProblem[] | undefined> {
  const all = await readEntryFiles(contentDir, undefined, true, parsedEntries);
  const known = all.find((f) => f.rel === rel);
  const file = known ?? (await readEntryFiles(contentDir, [rel], true, parsedEntries))[0]!;
  if (vanished(file)) return undefined;
  return entryProblems(file, tagContext(known ? all : [...all, file], readServiceTagNames(contentDir)));
}

/** What {@link watchEntryFiles} calls. */
export interface EntryWatchHandlers {
  /**
   * An entry file was saved (added or changed, once the write settled): `rel` under the
   * content directory, e.g. `entries/2026-11-22-x.md`. A rejection goes to `error`.
   */
  saved(rel: string): Promise<void>;
  /** The watcher, or `saved`, failed; the watch goes on. */
  error(err: unknown): void;
}

/** A running watch; {@link EntryWatch.close} ends it. */
export interface EntryWatch {
  /** Resolves once the files there are known: a file saved from then on is handed on. */
  ready: Promise<void>;
  /** Stops watching, and resolves once every `saved` call under way has settled. */
  close(): Promise<void>;
}

/** Watches `contentDir/entries/` for saved entry files (`*.md`). */
export function watchEntryFiles(contentDir: string, handlers: EntryWatchHandlers): EntryWatch {
  const entriesDir = join(contentDir, ENTRIES_DIR);
  const watcher = watch(entriesDir, { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 25 } });
  const running = new Set<Promise<void>>();
  const saved = (abs: string) => {
    if (!abs.endsWith('.md')) return;
    const run = handlers
      .saved(`${ENTRIES_DIR}/${relative(entriesDir, abs)}`)
      .catch((err: unknown) => handlers.error(err))
      .finally(() => running.delete(run));
    running.add(run);
  };
  // Without an `error` listener an error event of the watcher (a folder that cannot be
  // read, say) would be thrown, and end the preview.
  watcher.on('add', saved).on('change', saved).on('error', (err) => handlers.error(err));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      await watcher.close();
      await Promise.all(running);
    },
  };
}
