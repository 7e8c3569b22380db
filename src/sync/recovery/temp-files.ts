/**
 * Leftovers of atomic writes (`core/atomic-file.ts`): a process killed between write and rename
 * leaves `.<name>.<pid>.<n>.tmp`, which a workflow's `git add content` would commit.
 * {@link removeLeftoverTempFiles} removes them before a run in every folder the tool writes,
 * only exact temporary names of its files, of processes that no longer run: never a writer's file.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { removeTempLeftovers } from '../../core/atomic-file.js';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import { MEDIA_COPY, MEDIA_DIR } from '../../convert/media-refs.js';
import { CONFLICTS_DIR } from '../store/state.js';
import { TAGS_DATA_FILE, WORKSPACE_DATA_FILE } from '../../entry/workspace-binding.js';

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
 * Removes the temporary files interrupted atomic writes left in every folder the tool writes.
 * Call it holding the lock.
 * @param entryNames the names in `content/entries/`, when the caller listed it already.
 * @returns the paths removed, relative to the content directory, or `state:<path>`.
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
    removed.push(...removeTempLeftovers(folder.dir, names, folder.ours).map(folder.report));
  }
  return removed;
}
