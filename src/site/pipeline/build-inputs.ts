/**
 * Whether the site changed since the last recorded build: the scheduled job builds and deploys
 * only then (docs/github-actions.md#build-and-deploy-only-when-the-site-changed).
 *
 * The site's fingerprint is a digest of its inputs: every file under the content directory, the
 * team's `site/`, `.eleventy.js`, `changelog.config.json`, `package-lock.json`, the site URL and
 * service root, and the tool (version, compiled code, packaged templates). Beside it is the
 * earliest date (UTC) an entry scheduled for later appears. A successful `build` records both in
 * `.changelog/site-inputs.json` ({@link recordSiteBuild}); `sync` compares with it
 * ({@link siteChange}): changed when the digest differs, nothing is recorded, or that date came.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join, relative, sep } from 'node:path';
import { CONFIG_FILE, PACKAGE_ROOT, toolVersion, type Config } from '../../core/config.js';
import { readEntryFiles } from '../../entry/entry-files.js';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import { writeJsonIfChanged } from '../../core/atomic-file.js';
import { contentHash } from '../../core/hash.js';
import { entryDate, visibility } from '../../entry/permalinks.js';

/** File name of the record of the last successful build, in the state directory. */
export const SITE_INPUTS_FILE = 'site-inputs.json';

/** The site's inputs as of now. */
export interface SiteInputs {
  /** sha256 (hex) over every input: see the module documentation. */
  hash: string;
  /** The earliest publish date (`YYYY-MM-DD`) after `today` of an entry that will appear then; null when none. */
  nextDue: string | null;
  /** The tool's version (package.json). */
  tool: string;
}

/** `.changelog/site-inputs.json`: the inputs of the last successful build. */
interface SiteBuildRecord extends SiteInputs {
  /** Format of this file. */
  version: 1;
}

/** The decision of {@link siteChange}. */
export interface SiteChange {
  changed: boolean;
  /** Why, for the log: e.g. "no earlier build to compare with (...)", "the entries, templates or configuration changed", "an entry scheduled for `2026-11-24` is due". */
  reason: string;
  /** The inputs now (what a build would record). */
  inputs: SiteInputs;
}

/** Every file under `dir` as `[path relative to base, '/'-separated, digest]`; a symbolic link hashed as its target's name, never followed. */
async function digestTree(dir: string, base: string, skip: (rel: string) => boolean = () => false): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  const dirents = await readdir(dir, { withFileTypes: true, recursive: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  for (const d of dirents) {
    const abs = join(d.parentPath, d.name);
    const rel = relative(base, abs).split(sep).join('/');
    if (skip(rel) || d.isDirectory()) continue;
    if (d.isSymbolicLink()) out.push([rel, `link:${await readlink(abs)}`]);
    else if (d.isFile()) out.push([rel, contentHash(await readFile(abs))]);
  }
  return out;
}

/**
 * Computes the site's inputs for a configuration.
 * @param config the resolved configuration (its content, site and state directories, site URL, service root).
 * @param today `YYYY-MM-DD` (UTC) the site is built for; default today.
 * @throws {Error} (Node's) when a directory that exists cannot be listed or a file read; a
 *   missing directory is no input.
 */
export async function siteInputs(config: Config, today: string = new Date().toISOString().slice(0, 10)): Promise<SiteInputs> {
  const tool = toolVersion();
  const parts: Array<[string, string]> = [
    ['tool', tool],
    ['siteUrl', config.siteUrl],
    ['baseUrl', config.baseUrl ?? ''],
  ];
  // Entry files are parsed as well as hashed: their publish dates give the next due date.
  // The date rule is the site data's (src/site/render/site-data.ts loadSiteData).
  // Several workspaces: each mirror's entry files, named under the content folder (`<key>/entries/...`).
  const mirrors = config.workspaces?.map((w) => `${w.key}/`) ?? [''];
  let nextDue: string | null = null;
  for (const prefix of mirrors) {
    for (const f of await readEntryFiles(join(config.contentDir, prefix))) {
      // Line ends read as LF: a checkout with core.autocrlf is the same site.
      parts.push([`content/${prefix}${f.rel}`, contentHash(f.raw)]);
      if (!f.entry) continue;
      const d = f.entry.data;
      const date = entryDate(d.publish_at, f.rel, today);
      if (visibility(d.status, d.is_published, date, today, f.entry.extra.draft === true) === 'scheduled' && (nextDue === null || date < nextDue)) nextDue = date;
    }
  }
  const isEntryFile = (rel: string) =>
    mirrors.some((prefix) => rel.startsWith(`${prefix}${ENTRIES_DIR}/`) && rel.endsWith('.md') && !rel.slice(prefix.length + ENTRIES_DIR.length + 1).includes('/'));
  for (const [rel, digest] of await digestTree(config.contentDir, config.contentDir, isEntryFile)) parts.push([`content/${rel}`, digest]);
  for (const [rel, digest] of await digestTree(config.siteDir, config.siteDir)) parts.push([`site/${rel}`, digest]);
  // The tool's code, not only its version: a repository made from this one builds it from source that bumps no version.
  for (const dir of ['dist', 'site']) for (const [rel, digest] of await digestTree(join(PACKAGE_ROOT, dir), PACKAGE_ROOT)) parts.push([`tool/${rel}`, digest]);
  if (existsSync(join(PACKAGE_ROOT, '.eleventy.js'))) parts.push(['tool/.eleventy.js', contentHash(await readFile(join(PACKAGE_ROOT, '.eleventy.js')))]);
  // The lock file pins Eleventy and the other libraries the build runs.
  for (const name of [CONFIG_FILE, '.eleventy.js', 'package-lock.json']) {
    const path = join(config.root, name);
    if (existsSync(path)) parts.push([name, contentHash(await readFile(path))]);
  }
  parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256');
  for (const [k, v] of parts) hash.update(`${k}\0${v}\n`);
  return { hash: hash.digest('hex'), nextDue, tool };
}

/** Reads `.changelog/site-inputs.json`; undefined when it is missing or not a record. */
async function loadSiteBuildRecord(stateDir: string): Promise<SiteBuildRecord | undefined> {
  try {
    const json = JSON.parse(await readFile(join(stateDir, SITE_INPUTS_FILE), 'utf8')) as Partial<SiteBuildRecord>;
    if (json.version !== 1 || typeof json.hash !== 'string') return undefined;
    return { version: 1, hash: json.hash, nextDue: typeof json.nextDue === 'string' ? json.nextDue : null, tool: String(json.tool ?? '') };
  } catch {
    return undefined;
  }
}

/**
 * Records a successful build's inputs in `.changelog/site-inputs.json` (atomically, only when changed).
 * @param inputs the inputs as they were when the build started ({@link siteInputs}).
 * @returns true when the file was written.
 */
export async function recordSiteBuild(stateDir: string, inputs: SiteInputs): Promise<boolean> {
  const record: SiteBuildRecord = { version: 1, hash: inputs.hash, nextDue: inputs.nextDue, tool: inputs.tool };
  return writeJsonIfChanged(join(stateDir, SITE_INPUTS_FILE), record);
}

/** The reason when no build is on record (`Site changed: ...` in the log): in plain words, what it means. */
const NO_BUILD_YET = 'no earlier build to compare with (the first run here, or the last build was not deployed)';

/**
 * Whether the site changed since the last recorded build: no record, another digest, or `today >= nextDue`.
 * @param today `YYYY-MM-DD` (UTC); default today.
 */
export async function siteChange(config: Config, today: string = new Date().toISOString().slice(0, 10)): Promise<SiteChange> {
  const [inputs, record] = await Promise.all([siteInputs(config, today), loadSiteBuildRecord(config.stateDir)]);
  if (!record) return { changed: true, reason: NO_BUILD_YET, inputs };
  if (record.hash !== inputs.hash) {
    const why = record.tool !== inputs.tool ? `changelog-sync ${record.tool} -> ${inputs.tool}` : 'the entries, templates or configuration changed';
    return { changed: true, reason: why, inputs };
  }
  if (record.nextDue !== null && today >= record.nextDue) return { changed: true, reason: `an entry scheduled for ${record.nextDue} is due`, inputs };
  return { changed: false, reason: 'nothing the site is built from changed since the last build', inputs };
}
