/**
 * Leftovers of atomic writes. write-file-atomic writes `<name>.<number>` beside the target
 * and renames it into place; a process killed between the two (SIGKILL, a runner that
 * died) leaves that temporary file behind. Under the lock, nothing else of ours is
 * writing, so such files are removed before a run: they would otherwise be committed with
 * the content by a scheduled workflow.
 *
 * @module
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes `<name>.<digits>` files in `dir` whose `<name>` is one of `targets`, or, when
 * `targets` is a predicate, satisfies it.
 *
 * @returns the names removed.
 */
export async function removeAtomicWriteLeftovers(dir: string, targets: (name: string) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /^(.+)\.\d{1,10}$/.exec(name);
    if (!m || !targets(m[1]!)) continue;
    await rm(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}
