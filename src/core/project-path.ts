/**
 * Files stay inside the project (docs/architecture.md#conventions): a symbolic link resolving
 * outside it is refused, so a build never copies a file of the machine into `_site/` (passthrough
 * copy and `upload-pages-artifact` follow links) and a push never sends or writes a file outside
 * the repository. `build`, `push`, `pull`, `check` and `dev` call {@link assertInsideProject} first.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Config } from './config.js';
import { ChangelogSyncError } from './errors.js';

/** A symbolic link (or a folder reached through one) that resolves outside the project. */
interface OutsideFile {
  /** The path as the project names it (absolute). */
  file: string;
  /** Where it resolves to (absolute, real). */
  target: string;
}

/** True when `path` is `dir` or lies under it (both absolute; compared as written). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real path, or undefined when it does not exist (a dangling link copies nothing). */
async function real(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
    throw err;
  }
}

/** The boundary a folder's files stay in: the project root for a folder inside it, else the folder itself (packaged templates). */
async function boundaryOf(root: string, dir: string): Promise<string | undefined> {
  return isInside(root, dir) ? real(root) : real(dir);
}

/**
 * Every path under `dir` (absolute; itself included) that is a link resolving outside
 * `boundary` (real), or lies in a folder that does. Links to folders inside are walked, each real
 * folder once (a cycle ends); only links cost a `realpath`.
 */
async function findOutside(dir: string, boundary: string): Promise<OutsideFile[]> {
  const found: OutsideFile[] = [];
  const seen = new Set<string>();
  const visit = async (path: string, isLink: boolean): Promise<void> => {
    const target = isLink ? await real(path) : path;
    if (target === undefined) return;
    if (isLink && !isInside(boundary, target)) return void found.push({ file: path, target });
    if (isLink && !(await stat(target)).isDirectory()) return;
    if (seen.has(target)) return;
    seen.add(target);
    let entries: Dirent[];
    try {
      entries = await readdir(path, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw err;
    }
    for (const d of entries) {
      if (d.isSymbolicLink() || d.isDirectory()) await visit(join(path, d.name), d.isSymbolicLink());
    }
  };
  const top = await real(dir);
  if (top === undefined) return found;
  if (!isInside(boundary, top)) return [{ file: dir, target: top }];
  // `dir` itself may be reached through a link that stays inside: walk it by its own name.
  seen.add(top);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  for (const d of entries) {
    if (d.isSymbolicLink() || d.isDirectory()) await visit(join(dir, d.name), d.isSymbolicLink());
  }
  return found;
}

/**
 * The folders and files {@link assertInsideProject} checks, as the configuration names them (paths
 * absolute): the root; the content, site (the packaged one is checked against itself) and state
 * directories, each when given; `files` to check one by one (those `check` was given); and `cwd`,
 * the working directory the message names files relative to (default: the root).
 */
export type ProjectPaths = Pick<Config, 'root'> & Partial<Pick<Config, 'contentDir' | 'siteDir' | 'stateDir' | 'cwd'>> & { files?: string[] };

/**
 * Refuses a project with a symbolic link resolving outside it.
 * @throws {ChangelogSyncError} `E_OUTSIDE_PROJECT` naming every such file (relative to `paths.cwd`) and where it leads.
 */
export async function assertInsideProject(paths: ProjectPaths): Promise<void> {
  const outside: OutsideFile[] = [];
  for (const dir of [paths.contentDir, paths.siteDir, paths.stateDir]) {
    if (dir === undefined) continue;
    const boundary = await boundaryOf(paths.root, dir);
    if (boundary !== undefined) outside.push(...(await findOutside(dir, boundary)));
  }
  const rootReal = await real(paths.root);
  for (const file of paths.files ?? []) {
    const target = await real(file);
    if (rootReal !== undefined && target !== undefined && isInside(paths.root, file) && !isInside(rootReal, target)) outside.push({ file, target });
  }
  if (outside.length === 0) return;
  const shown = (p: string) => relative(paths.cwd ?? paths.root, p) || '.';
  const list = outside.slice(0, 10).map((o) => `${shown(o.file)} -> ${o.target}`);
  if (outside.length > 10) list.push(`and ${outside.length - 10} more`);
  const first = shown(outside[0]!.file);
  throw new ChangelogSyncError(
    'E_OUTSIDE_PROJECT',
    `${first}: a symbolic link that resolves outside the project (${shown(paths.root)}); nothing is read or copied through it: ${list.join('; ')}`,
    {
      file: first,
      hint: 'copy the file into the project (or point the link at a file inside it); a link may lead anywhere inside the project',
    },
  );
}
