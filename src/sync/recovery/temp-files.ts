/**
 * Leftovers of atomic writes (issue 12, item 5). Two writers leave temporary files beside
 * their target when a process is killed between writing and renaming (SIGKILL, a runner
 * that died, a cancelled workflow):
 *
 * - write-file-atomic (state, journal, ledger, lock holder, `_data/*.json`, push's
 *   write-back, `new`): `<name>.<n>`, where `<n>` is the first 32 bits of a SHA-1 as a
 *   decimal number (its `getTmpname`);
 * - `atomic-file.ts` (pull's entry files and conflict copies): `.<name>.<pid>.<n>.tmp`.
 *
 * A scheduled workflow's `git add content` would commit them. Under the lock nothing else
 * of ours writes, so {@link removeLeftoverTempFiles} removes them before a run, in every
 * folder the tool writes: `content/entries/`, `content/_data/`, the state directory and its
 * `conflicts/`. Only names that are exactly a temporary file of a file the tool writes
 * there are touched: never a writer's file.
 *
 * @module
 */
import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { removeTempLeftovers } from '../../core/atomic-file.js';
import { ENTRIES_DIR } from '../../entry/entry-files.js';
import { MEDIA_COPY, MEDIA_DIR } from '../../convert/media-refs.js';
import { CONFLICTS_DIR } from '../store/state.js';
import { TAGS_DATA_FILE, WORKSPACE_DATA_FILE } from '../../entry/workspace-binding.js';

/** write-file-atomic's temporary name: `<target>.<uint32 in decimal>`. */
const WRITE_FILE_ATOMIC_TEMP = /^(.+)\.(\d{1,10})$/;

/**
 * Removes `<name>.<n>` files (write-file-atomic's temporary files) in `dir` whose `<name>`
 * satisfies `targets`.
 *
 * @param names the names in `dir`, when the caller has listed it already.
 * @returns the names removed.
 */
async function removeAtomicWriteLeftovers(dir: string, targets: (name: string) => boolean, names?: readonly string[]): Promise<string[]> {
  if (!names) {
    try {
      names = await readdir(dir);
    } catch {
      return [];
    }
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = WRITE_FILE_ATOMIC_TEMP.exec(name);
    if (!m || Number(m[2]) > 0xffffffff || !targets(m[1]!)) continue;
    await rm(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** One folder the tool writes, and which of its names are the tool's files. */
interface WrittenFolder {
  /** Absolute path. */
  dir: string;
  /** How a removed name is reported: the path relative to the content directory, or `state:<path>`. */
  report: (name: string) => string;
  /** True for the name of a file the tool writes in this folder. */
  ours: (name: string) => boolean;
}

/**
 * Removes the temporary files that interrupted atomic writes left in every folder the
 * tool writes (see the module description). Call it while holding the lock.
 *
 * @param contentDir the mirror (`entries/`, `_data/`).
 * @param stateDir the state directory (state, journal, ledger, lock holder, `conflicts/`).
 * @param entryNames the names in `content/entries/`, when the caller has listed it already.
 * @returns the paths removed: relative to the content directory (`entries/...`,
 *   `_data/...`), or `state:<path>` inside the state directory.
 */
export async function removeLeftoverTempFiles(contentDir: string, stateDir: string, entryNames?: readonly string[]): Promise<string[]> {
  const dataFiles = new Set([basename(WORKSPACE_DATA_FILE), basename(TAGS_DATA_FILE)]);
  const folders: WrittenFolder[] = [
    { dir: join(contentDir, ENTRIES_DIR), report: (n) => `${ENTRIES_DIR}/${n}`, ours: (n) => n.endsWith('.md') },
    { dir: join(contentDir, dirname(WORKSPACE_DATA_FILE)), report: (n) => `${dirname(WORKSPACE_DATA_FILE)}/${n}`, ours: (n) => dataFiles.has(n) },
    // The images pull mirrored: content-addressed copies (media-mirror.ts).
    { dir: join(contentDir, MEDIA_DIR), report: (n) => `${MEDIA_DIR}/${n}`, ours: (n) => MEDIA_COPY.test(n) },
    // The state directory holds nothing but the tool's files (JSON), and conflict copies (Markdown).
    { dir: stateDir, report: (n) => `state:${n}`, ours: (n) => n.endsWith('.json') },
    { dir: join(stateDir, CONFLICTS_DIR), report: (n) => `state:${CONFLICTS_DIR}/${n}`, ours: (n) => n.endsWith('.md') },
  ];
  const removed: string[] = [];
  for (const [i, folder] of folders.entries()) {
    let names: readonly string[] | undefined = i === 0 ? entryNames : undefined;
    if (!names) {
      try {
        names = await readdir(folder.dir);
      } catch {
        continue; // not there yet: nothing to clean
      }
    }
    const left = [
      ...removeTempLeftovers(folder.dir, names.filter((n) => ours(folder, n.match(ATOMIC_FILE_TARGET)?.[1]))),
      ...(await removeAtomicWriteLeftovers(folder.dir, folder.ours, names)),
    ];
    removed.push(...left.map(folder.report));
  }
  return removed;
}

/** The target of an `atomic-file.ts` temporary file: `.<target>.<pid>.<n>.tmp`. */
const ATOMIC_FILE_TARGET = /^\.(.+)\.\d+\.\d+\.tmp$/;

function ours(folder: WrittenFolder, target: string | undefined): boolean {
  return target !== undefined && folder.ours(target);
}
