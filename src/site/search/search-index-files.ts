/**
 * Writing a built search index's files into the site (docs/site.md#search). Pagefind hands
 * over its index in memory (`getFiles`, search-index.ts): a few index files and one
 * fragment per entry, so 10,000 entries are more than 10,000 small files to create.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A file of a built index: its path relative to the index folder, and its bytes. */
export interface IndexFile {
  path: string;
  content: Uint8Array;
}

/**
 * Writes the files of an index into `dir`: a file already there with the same bytes is left
 * as it is (most are named by the hash of their content, so an unchanged entry's fragment
 * stays), and files of an earlier index that this one does not have are removed.
 * Overwriting is cheaper than emptying the folder and creating every file again: 10,000
 * fragments are 10,000 files. The files are small and many, so they are read and written
 * with synchronous calls, one after the other: several times faster on a settled disk than
 * a promise per file.
 *
 * @param dir the index folder (`pagefind/` of the site).
 * @param files Pagefind's files, paths relative to `dir`.
 * @throws the file system's error (`ENOSPC`, `EACCES`, ...) of the first file that could not be written or removed.
 */
export function writeIndexFiles(dir: string, files: readonly IndexFile[]): void {
  const wanted = new Set<string>();
  const made = new Set<string>();
  for (const file of files) {
    const path = join(dir, file.path);
    wanted.add(path);
    let before: Buffer | undefined;
    try {
      before = readFileSync(path);
    } catch {
      // not there yet
    }
    if (before && Buffer.compare(before, file.content) === 0) continue;
    const folder = dirname(path);
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    writeFileSync(path, file.content);
  }
  const folders: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(d.parentPath, d.name);
    if (d.isDirectory()) folders.push(path);
    else if (!wanted.has(path)) rmSync(path, { force: true });
  }
  // Folders left empty (an earlier build's recent entries' bundle, search-bundles.ts), deepest first.
  for (const folder of folders.sort((a, b) => b.length - a.length)) {
    if (!made.has(folder) && readdirSync(folder).length === 0) rmdirSync(folder);
  }
}
