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
import { readCacheFile, writeCacheFile } from './cache-file.js';

/** The format of `bodies.json`; another one is ignored. */
const FORMAT = 'changelog-sync-build-cache/1';

/** The cache file in the cache folder. */
export const CACHE_FILE = 'bodies.json';

/** What the fingerprint is made of, besides the tool and the templates. */
export interface CacheOptions {
  siteUrl: string;
  basePath: string;
  theme?: string;
  backlinkUrl?: string | null;
}


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
function installedVersion(name: string, readJson: (path: string) => { name?: string; version?: string } | undefined): string | null {
  let file: string;
  try {
    file = fileURLToPath(import.meta.resolve(name));
  } catch {
    return null;
  }
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const json = readJson(join(dir, 'package.json'));
    if (json?.name === name) return json.version ?? null;
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
    const readJson = (path: string) => {
      try {
        return JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
      } catch {
        return undefined;
      }
    };
    for (const dep of Object.keys(pkg.dependencies ?? {}).sort()) hash.update(`dependency ${dep} ${installedVersion(dep, readJson)}\n`);
    for (const [file, bytes] of await readAll(codeDir, await fingerprintedFiles(codeDir))) hash.update(`module ${file} ${sha256(bytes)}\n`);
    return hash.digest('hex');
  })();
  return toolPrint;
}

/**
 * A build's fingerprint: two builds with the same one render a body to the same HTML.
 * @param siteInputDir Eleventy's input (the staged templates: the packaged ones with the team's laid over them).
 */
export async function buildFingerprint(siteInputDir: string, options: CacheOptions): Promise<string> {
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

/** A cache of rendered bodies, opened for one build. */
export interface BodyCache {
  /** The cached HTML of a body, if any. */
  get(markdown: string): string | undefined;
  /** Records a body's HTML (kept by {@link BodyCache.save}). */
  set(markdown: string, html: string): void;
  /** Bodies found in the cache, and rendered, in this build so far. */
  readonly stats: { hits: number; misses: number };
  /** Why the previous cache was not used (corrupt, another version or template set), else undefined. */
  readonly note: string | undefined;
  /**
   * Writes this build's bodies (only those: removed entries' go) atomically.
   * @throws when the folder cannot be written (the build reports it as a warning).
   */
  save(): Promise<void>;
}

/** Opens the cache in `dir` for `fingerprint`: missing, of another fingerprint or corrupt, it is empty (with a {@link BodyCache.note} saying why). */
export async function openBodyCache(dir: string, fingerprint: string): Promise<BodyCache> {
  const file = join(dir, CACHE_FILE);
  let previous: Record<string, string> = {};
  const { value: bodies, note: unusable } = await readCacheFile(file, FORMAT, fingerprint);
  let note = unusable;
  if (bodies !== undefined) {
    if (bodies && typeof bodies === 'object' && !Array.isArray(bodies) && Object.values(bodies).every((v) => typeof v === 'string')) previous = bodies as Record<string, string>;
    else note = 'it is corrupt (not a map of rendered bodies)';
  }
  const current = new Map<string, string>();
  const stats = { hits: 0, misses: 0 };
  return {
    stats,
    note: note && `the build cache (${file}) was not used: ${note}; every entry was rendered again`,
    get(markdown) {
      const key = sha256(markdown);
      const html = Object.hasOwn(previous, key) ? previous[key] : undefined;
      if (html === undefined) {
        stats.misses++;
        return undefined;
      }
      stats.hits++;
      current.set(key, html);
      return html;
    },
    set(markdown, html) {
      current.set(sha256(markdown), html);
    },
    async save() {
      await writeCacheFile(file, FORMAT, fingerprint, Object.fromEntries(current), { bodies: current.size });
    },
  };
}
