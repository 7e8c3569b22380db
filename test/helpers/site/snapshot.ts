import { createHash } from 'node:crypto';
import { readFile, readdir, stat, utimes } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Every file under `root`: relative path -> "sha256 mtimeMs". Two equal snapshots mean no file was written. */
export async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(relative(root, p), `${createHash('sha256').update(await readFile(p)).digest('hex')} ${(await stat(p)).mtimeMs}`);
    }
  };
  await walk(root);
  return out;
}

/** Sets every file's mtime an hour into the past, so that a rewrite within the same millisecond still shows. */
export async function ageFiles(root: string): Promise<void> {
  const past = new Date(Date.now() - 3_600_000);
  for (const p of (await snapshot(root)).keys()) await utimes(join(root, p), past, past);
}

/** Paths whose entry differs between two snapshots (changed, added or removed), sorted. */
export function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort();
}
