/**
 * Listing a folder tree's files (the staged templates, a built site) with Node's recursive
 * `readdir`, and comparing two files.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every file under `dir` (absolute, unordered), none when `dir` does not exist; any other error
 * (EACCES) is thrown, as a listing that missed files would make a prune or hash wrong. `skip`, a
 * folder directly in `dir`, is not read at all (a built site's search index holds a file per entry).
 */
export async function filesUnder(dir: string, skip?: string): Promise<string[]> {
  const top = await readdir(dir, { withFileTypes: true }).catch(noneIfMissing);
  const lists = await Promise.all(
    top.map(async (d) => {
      const path = join(dir, d.name);
      if (!d.isDirectory()) return [path];
      if (path === skip) return [];
      const below = await readdir(path, { withFileTypes: true, recursive: true }).catch(noneIfMissing);
      return below.filter((e) => !e.isDirectory()).map((e) => join(e.parentPath, e.name));
    }),
  );
  return lists.flat();
}

/** Whether two files hold the same bytes (false when either cannot be read). */
export async function sameBytes(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [x, y] = await Promise.all([readFile(a).catch(() => undefined), readFile(b).catch(() => undefined)]);
  return x !== undefined && y !== undefined && x.equals(y);
}

/** An empty listing for a folder that does not exist (it may be removed while listed); any other error is rethrown. */
function noneIfMissing(err: NodeJS.ErrnoException): never[] {
  if (err.code === 'ENOENT') return [];
  throw err;
}
