/**
 * Listing the files of a folder tree (the staged templates, a built site), by Node's own
 * recursive `readdir`.
 *
 * @module
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every file under `dir` (absolute paths; anything but a folder, in no set order), none
 * when `dir` does not exist; nothing under `skip`, a folder directly in `dir` (it is not
 * read at all: a built site's search index holds a file per entry).
 */
export async function filesUnder(dir: string, skip?: string): Promise<string[]> {
  const top = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const lists = await Promise.all(
    top.map(async (d) => {
      const path = join(dir, d.name);
      if (!d.isDirectory()) return [path];
      if (path === skip) return [];
      const below = await readdir(path, { withFileTypes: true, recursive: true }).catch(() => []);
      return below.filter((e) => !e.isDirectory()).map((e) => join(e.parentPath, e.name));
    }),
  );
  return lists.flat();
}
