/**
 * The build cache: each entry body's rendered HTML from the previous build, so a build renders
 * only the bodies that changed (about a millisecond an entry; a scheduled build finds almost all
 * unchanged). One file, `bodies.json` in the cache folder (docs/site.md#build-cache), of
 * cache-file.ts's format, the bodies keyed by the SHA-256 of their Markdown. A body's HTML depends
 * on its Markdown and the renderer only; the fingerprint covers everything that may shape the
 * output: the tool's version and every compiled module, its dependencies' installed versions, the
 * staged templates, and the site URL, base path, theme and backlink. Another fingerprint or a
 * failed checksum renders everything and says why. Written atomically with this build's bodies
 * only, so it does not grow with removed entries.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder } from './file-list.js';
import { sha256 } from '../../core/hash.js';
import { openKeptMap, type KeptMap } from './cache-file.js';

/** The format of `bodies.json`; another one is ignored. */
const FORMAT = 'changelog-sync-build-cache/1';

/** The cache file in the cache folder. */
export const CACHE_FILE = 'bodies.json';

/** Every file under `dir` (file-list.ts; sorted relative paths), but for source maps and declarations. */
async function fingerprintedFiles(dir: string): Promise<string[]> {
  return (await filesUnder(dir))
    .filter((f) => !/\.(?:map|d\.ts)$/.test(f))
    .map((f) => relative(dir, f))
    .sort();
}

/** The bytes of `files` (relative to `dir`), in their order, read concurrently: read one by one, `dist/` delayed every cached build's start. */
async function readAll(dir: string, files: readonly string[]): Promise<Array<[string, Buffer]>> {
  return Promise.all(files.map(async (file): Promise<[string, Buffer]> => [file, await readFile(join(dir, file))]));
}

/** The version of an installed package, found from its resolved entry point; null when it does not resolve. */
export function installedVersion(name: string): string | null {
  let file: string;
  try {
    file = fileURLToPath(import.meta.resolve(name));
  } catch {
    return null;
  }
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === name) return json.version ?? null;
    } catch {
      // no package.json here, or not JSON: a folder above may be the package's
    }
  }
  return null;
}

let toolPrint: Promise<string> | undefined;

/** The tool's part of the fingerprint, once per process: its version, its modules' bytes (`dist/`, or `src/`) and its dependencies' versions. */
function toolFingerprint(): Promise<string> {
  toolPrint ??= (async () => {
    const codeDir = fileURLToPath(new URL('../..', import.meta.url));
    const root = dirname(codeDir);
    const hash = createHash('sha256');
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version?: string; dependencies?: Record<string, string> };
    hash.update(`version ${pkg.version ?? ''}\n`);
    for (const dep of Object.keys(pkg.dependencies ?? {}).sort()) hash.update(`dependency ${dep} ${installedVersion(dep)}\n`);
    for (const [file, bytes] of await readAll(codeDir, await fingerprintedFiles(codeDir))) hash.update(`module ${file} ${sha256(bytes)}\n`);
    return hash.digest('hex');
  })();
  return toolPrint;
}

/**
 * A build's fingerprint: two builds with the same one render a body to the same HTML.
 * @param siteInputDir Eleventy's input (the staged templates: the packaged ones with the team's laid over them).
 * @param options what it is made of besides the tool and the templates.
 */
export async function buildFingerprint(siteInputDir: string, options: { siteUrl: string; basePath: string; theme?: string; backlinkUrl?: string | null }): Promise<string> {
  const templates = createHash('sha256');
  for (const [file, bytes] of await readAll(siteInputDir, await fingerprintedFiles(siteInputDir))) templates.update(`template ${file} ${sha256(bytes)}\n`);
  // One part per thing that may differ, so that a cache not used can say which did ({@link fingerprintChange}).
  const part = (text: string) => sha256(text).slice(0, 16);
  const parts: Record<FingerprintPart, string> = {
    tool: part(`${FORMAT}\n${await toolFingerprint()}`),
    templates: templates.digest('hex').slice(0, 16),
    siteUrl: part(options.siteUrl),
    basePath: part(options.basePath),
    theme: part(JSON.stringify(options.theme ?? null)),
    backlink: part(JSON.stringify(options.backlinkUrl ?? null)),
  };
  return Object.entries(parts)
    .map(([k, v]) => `${k}=${v}`)
    .join(';');
}

/** The parts of a build's fingerprint, each what one reason of a change covers. */
type FingerprintPart = 'tool' | 'templates' | 'siteUrl' | 'basePath' | 'theme' | 'backlink';

/** What a changed part of the fingerprint says. */
const CHANGED: Record<FingerprintPart, string> = {
  tool: 'another version of changelog-sync (or of its dependencies)',
  templates: 'other templates',
  siteUrl: 'another site URL',
  basePath: 'another base path',
  theme: 'another theme',
  backlink: 'another hosted page (the backlink)',
};

/** The parts of a fingerprint; none for one of another form (an earlier version's, a single hash). */
function fingerprintParts(fingerprint: string): Map<string, string> {
  return new Map(fingerprint.split(';').flatMap((p) => (/^\w+=\w+$/.test(p) ? [p.split('=') as [string, string]] : [])));
}

/** Why a cache made with `previous` is not one for `current`: the differing parts ("it was made for another site URL"); another form is an earlier version's. */
function fingerprintChange(previous: string, current: string): string {
  const before = fingerprintParts(previous);
  const now = fingerprintParts(current);
  const changed = (Object.keys(CHANGED) as FingerprintPart[]).filter((k) => before.get(k) !== now.get(k));
  if (before.size === 0 || changed.includes('tool')) return `it was made by ${CHANGED.tool}`;
  return `it was made with ${changed.map((k) => CHANGED[k]).join(' and ')}`;
}

/**
 * The one line saying the cache folder was made under another fingerprint, naming what differed
 * (each file's reader stays silent, build-prepare.ts); undefined when none differs.
 * @param files the cache files of the folder, in the order to look (each starts with a JSON line holding `fingerprint`).
 */
export async function cacheChangeNote(dir: string, files: readonly string[], fingerprint: string): Promise<string | undefined> {
  for (const name of files) {
    const previous = await firstLineFingerprint(join(dir, name));
    if (previous !== undefined && previous !== fingerprint) return `the build cache (${dir}) was not used: ${fingerprintChange(previous, fingerprint)}; the site was built without what it held`;
  }
  return undefined;
}

/** The `fingerprint` of a cache file's first line (read 64 KB at most), if it has one. */
async function firstLineFingerprint(file: string): Promise<string | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const newline = text.indexOf('\n');
    const header = JSON.parse(newline < 0 ? text : text.slice(0, newline)) as { fingerprint?: unknown };
    return typeof header.fingerprint === 'string' ? header.fingerprint : undefined;
  } catch {
    return undefined; // missing, or corrupt: its own reader says so
  } finally {
    await handle?.close();
  }
}

/** A cache of rendered bodies, opened for one build: {@link KeptMap} keyed by the Markdown (its SHA-256 in the file); a body found is kept for the next build. */
export type BodyCache = KeptMap<string>;

/** Opens the cache in `dir` for `fingerprint`: missing, of another fingerprint or corrupt, it is empty (with a {@link BodyCache.note} saying why). */
export async function openBodyCache(dir: string, fingerprint: string): Promise<BodyCache> {
  const kept = await openKeptMap(join(dir, CACHE_FILE), fingerprint, {
    format: FORMAT,
    name: 'the build cache',
    values: 'rendered bodies',
    without: 'every entry was rendered again',
    count: 'bodies',
    isValue: (v): v is string => typeof v === 'string',
  });
  return {
    ...kept,
    get(markdown) {
      const key = sha256(markdown);
      const html = kept.get(key);
      if (html !== undefined) kept.set(key, html);
      return html;
    },
    set: (markdown, html) => kept.set(sha256(markdown), html),
  };
}
