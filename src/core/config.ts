/**
 * One typed configuration: environment variables > `changelog.config.json` > defaults,
 * validated once (docs/architecture.md#module-map: config.ts).
 *
 * The token is read from the environment only (`CHANGELOG_TOKEN`), never from a file, and
 * never printed: the CLI's reporter (cli/output/reporter.ts) and the library's warnings mask it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ChangelogSyncError } from './errors.js';
import { assertBaseUrl } from './base-url.js';
import { DEFAULT_MAX_IMAGE_MEGAPIXELS, DEFAULT_MAX_IMAGE_SIDE, type ImageBounds } from './image-bounds.js';
import { didYouMean, jsonSyntaxProblem, lineOfJsonKey } from './json-syntax.js';
import { shownFrom } from './file-error.js';
import { keyLike, refuseWorkspaceToken, tokenEnvFor, workspaceEntries, workspaceSchema, WORKSPACE_KEY, type WorkspaceEntry } from './workspace-entries.js';

export type { WorkspaceEntry } from './workspace-entries.js';

/** Default of {@link Config.maxResponseMb}: many times the listing of 10,000 real entries. */
export const DEFAULT_MAX_RESPONSE_MB = 256;

/** Default of {@link Config.maxImageMb}: the size over which a new entry's local image is a warning of `check` and push. */
export const DEFAULT_MAX_IMAGE_MB = 5;

/** Default of {@link Config.imageDeadlineSeconds}: 3 minutes, well inside a scheduled job's 30. */
export const DEFAULT_IMAGE_DEADLINE_SECONDS = 180;

/**
 * Longest time to live of the push lease, ms (docs/sync.md#the-push-lease): a clone waits the
 * lifetime the holder recorded before taking over, and refuses a record beyond this.
 */
export const MAX_LEASE_TTL_MS = 30 * 60_000;

/** The default build cache folder, relative to the project root (ignored by git with `node_modules/`; see src/site/cache/build-cache.ts). */
export const DEFAULT_CACHE_DIR = 'node_modules/.cache/changelog-sync/build';

/** The schema of `changelog.config.json` (every field optional). */
const fileConfigSchema = z
  .object({
    $schema: z.string().optional().describe('JSON Schema of this file, for editors'),
    baseUrl: z.url().optional().describe('service root, e.g. https://changelog.example.com (env CHANGELOG_BASE_URL wins)'),
    contentDir: z.string().min(1).optional().describe('the mirror: entries/*.md and _data/*.json (default "content")'),
    stateDir: z.string().min(1).optional().describe('sync state, push journal, conflicts and the daily request ledger (default ".changelog")'),
    siteDir: z.string().min(1).optional().describe('Eleventy templates (default "site", else the packaged templates)'),
    outputDir: z.string().min(1).optional().describe('the built site (default "_site")'),
    siteUrl: z.url().optional().describe('public URL of the built site, for feeds and absolute links'),
    buildCache: z
      .union([z.string().min(1), z.literal(false)])
      .optional()
      .describe('folder of the build cache (rendered entry bodies of the last build), or false for none (default "node_modules/.cache/changelog-sync/build"; env CHANGELOG_BUILD_CACHE wins, "off" for none)'),
    hostedPageUrl: z
      .union([z.url({ protocol: /^https?$/ }), z.literal(false)])
      .optional()
      .describe('the workspace\'s page on the hosted changelog service (its email sign-up), or false for none (default "<baseUrl>/<workspace slug>"; env CHANGELOG_HOSTED_PAGE_URL wins, "off" for none)'),
    concurrency: z.number().int().min(1).max(16).optional().describe('requests in flight at once (default 4)'),
    theme: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'a theme name: lowercase letters, digits and "-"')
      .optional()
      .describe('site theme, over the workspace\'s: "commit", "paper", "mono", or <name> for a site/_includes/css/themes/<name>.css of your own (env CHANGELOG_THEME wins)'),
    maxResponseMb: z
      .number()
      .positive()
      .optional()
      .describe(`largest response body read from the service, in MB; a larger one fails with E_RESPONSE_TOO_LARGE (default ${DEFAULT_MAX_RESPONSE_MB}; env CHANGELOG_MAX_RESPONSE_MB wins)`),
    maxImageMb: z
      .number()
      .positive()
      .optional()
      .describe(`size in MB over which a new entry's local image (content/images/) is a warning of check and push (default ${DEFAULT_MAX_IMAGE_MB})`),
    maxImageSide: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`largest width or height, in pixels, of an image pull stores or build encodes, read from its header; a larger one is refused (default ${DEFAULT_MAX_IMAGE_SIDE})`),
    maxImageMegapixels: z
      .number()
      .positive()
      .optional()
      .describe(`largest width x height, in megapixels, of an image pull stores or build encodes, read from its header; a larger one is refused (default ${DEFAULT_MAX_IMAGE_MEGAPIXELS})`),
    imageDeadlineSeconds: z
      .number()
      .positive()
      .optional()
      .describe(`time in seconds for all of a pull's image downloads; the entries are written when it ends, and images not fetched by then are tried again by the next pull (default ${DEFAULT_IMAGE_DEADLINE_SECONDS})`),
    siteTitle: z.string().min(1).optional().describe('the name of a site of several workspaces, on its home, search and Subscribe pages and its combined feeds (default the first workspace\'s name)'),
    workspaces: z
      .record(z.string().regex(WORKSPACE_KEY, 'a workspace key: lower-case letters and digits, words joined by single "-"'), workspaceSchema)
      .refine((w) => Object.keys(w).length > 0, 'name at least one workspace, or remove the field')
      .optional()
      .describe('several workspaces, one per product, keyed by the product\'s path segment; each mirrored into <contentDir>/<key>/ with its state in <stateDir>/<key>/ (docs/sync.md "Several workspaces")'),
  })
  .strict();
type FileConfig = z.infer<typeof fileConfigSchema>;

/** The resolved configuration every command receives. Paths are absolute. */
export interface Config {
  /** Service root; undefined means "use the built-in emulator" (demo mode). */
  baseUrl: string | undefined;
  /** Workspace access token (from `CHANGELOG_TOKEN` only). */
  token: string | undefined;
  /** The mirror: `entries/*.md` and `_data/*.json`. Default `content`. */
  contentDir: string;
  /** Sync state, journal, conflicts and the daily request ledger. Default `.changelog`. */
  stateDir: string;
  /** Eleventy templates. Default `site`. */
  siteDir: string;
  /** Built site. Default `_site`. */
  outputDir: string;
  /** Public URL of the built site, for feeds and absolute links. Default `http://localhost:8080/`. */
  siteUrl: string;
  /** Whether {@link Config.siteUrl} was configured rather than the preview default (a build in GitHub Actions refuses the default). */
  siteUrlConfigured: boolean;
  /** Requests in flight at once. Default 4. */
  concurrency: number;
  /** Length of the service's rate-limit window in ms (tests and benchmarks against a compressed emulator). Default 60,000. */
  rateWindowMs: number;
  /** Timeout of one request in ms; twice this, a POST without an answer may still be in progress. Default 30,000. */
  requestTimeoutMs: number;
  /** Time to live of the push lease, ms (docs/sync.md#the-push-lease): renewed every third of it. Default 60,000. */
  leaseTtlMs: number;
  /** False: push takes no lease (the demo: its emulator is shared with no clone, and `origin` must not be written). Default true. */
  pushLease?: boolean;
  /** Largest response body read, in MB (2^20 bytes), else `E_RESPONSE_TOO_LARGE`. Default {@link DEFAULT_MAX_RESPONSE_MB}. */
  maxResponseMb: number;
  /** Size in MB (2^20 bytes) over which a new entry's local image is a warning (`check`, push). Default {@link DEFAULT_MAX_IMAGE_MB}. */
  maxImageMb: number;
  /** The largest image pull stores and build encodes, from its header (src/core/image-bounds.ts). Default 16,384 a side, 40 megapixels. */
  imageBounds: ImageBounds;
  /** Time for all of a pull's image downloads, in seconds (src/sync/pull/media-mirror.ts). Default {@link DEFAULT_IMAGE_DEADLINE_SECONDS}. */
  imageDeadlineSeconds: number;
  /** The project root all relative paths were resolved against. */
  root: string;
  /**
   * The working directory the run was given (the CLI's process's, read once at its entry,
   * or the library's `cwd`): paths shown to the user are relative to it, and paths given on
   * the command line are resolved against it. Nothing below the entries reads the process's.
   */
  cwd: string;
  /**
   * The environment the run was given (the CLI's process's, read once at its entry, or the
   * library's `env`): the settings above were read from it, and it is what depends on the
   * environment beyond them: whether this is a GitHub Actions step (a build that deploys, its
   * step outputs) and the environment git runs with (the push lease, commit-back).
   */
  env: NodeJS.ProcessEnv;
  /** The build cache folder (`CHANGELOG_BUILD_CACHE` > `buildCache`, see src/site/cache/build-cache.ts); undefined: no cache. */
  buildCacheDir?: string;
  /** The site theme, over the workspace's (`CHANGELOG_THEME` > `theme`); undefined: the workspace's. */
  theme?: string;
  /** Push checks a new entry's images as files of the site, not over HTTP (the demo, whose preview is built after its push). */
  localImages?: boolean;
  /**
   * The workspace's page on the hosted service (`CHANGELOG_HOSTED_PAGE_URL` > `hostedPageUrl`),
   * linked from the footer and the Subscribe page. Undefined: `<baseUrl>/<workspace slug>`; false: none.
   */
  hostedPageUrl?: string | false;
  /**
   * The workspaces of `workspaces`, in the file's key order (the first is the "first
   * workspace"); undefined without the field: one workspace, as {@link Config.baseUrl} and
   * {@link Config.token} say. A command runs on one by {@link workspaceConfig}.
   */
  workspaces?: WorkspaceEntry[];
  /** With {@link Config.workspaces}: the combined site's name (`siteTitle`); undefined: the first workspace's. */
  siteTitle?: string;
  /** Set by {@link workspaceConfig}: the one workspace of several this configuration is for (its push lease's ref carries its key). */
  workspace?: WorkspaceEntry;
}

/** Environment variables read by {@link loadConfig}. */
export const ENV = {
  baseUrl: 'CHANGELOG_BASE_URL',
  token: 'CHANGELOG_TOKEN',
  contentDir: 'CHANGELOG_CONTENT_DIR',
  stateDir: 'CHANGELOG_STATE_DIR',
  siteDir: 'CHANGELOG_SITE_DIR',
  outputDir: 'CHANGELOG_OUTPUT_DIR',
  siteUrl: 'CHANGELOG_SITE_URL',
  rateWindowMs: 'CHANGELOG_RATE_WINDOW_MS',
  requestTimeoutMs: 'CHANGELOG_TIMEOUT_MS',
  leaseTtlMs: 'CHANGELOG_LEASE_TTL_MS',
  theme: 'CHANGELOG_THEME',
  maxResponseMb: 'CHANGELOG_MAX_RESPONSE_MB',
  buildCache: 'CHANGELOG_BUILD_CACHE',
  hostedPageUrl: 'CHANGELOG_HOSTED_PAGE_URL',
} as const;

/** The root of the changelog-sync package (where its `site/`, workflows and schema live). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

let toolVersionRead: string | undefined;

/** The running tool's version (`0.2.0`, read once from its package.json), which the state format and the site's inputs record. */
export function toolVersion(): string {
  toolVersionRead ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return toolVersionRead;
}

/** The templates shipped with changelog-sync, used when a project has no `site/` of its own. */
export const PACKAGED_SITE_DIR = fileURLToPath(new URL('../../site', import.meta.url));

/**
 * The packaged Eleventy configuration (`.eleventy.js`): it adds the site plugin only. A project
 * whose `.eleventy.js` is this file byte for byte has no configuration of its own.
 */
export const PACKAGED_ELEVENTY_CONFIG = fileURLToPath(new URL('../../.eleventy.js', import.meta.url));

/** The JSON Schema of `changelog.config.json` (draft 2020-12), generated from {@link fileConfigSchema}. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(fileConfigSchema, { io: 'input' }),
    title: 'changelog-sync configuration',
    description: 'changelog.config.json: settings of changelog-sync. Environment variables (CHANGELOG_*) win over this file. The token is never read from a file.',
  };
}

/** The site URL when none is configured: the local preview (`changelog-sync dev`, a local `build`). */
const DEFAULT_SITE_URL = 'http://localhost:8080/';

/** Name of the optional configuration file in the project root. */
export const CONFIG_FILE = 'changelog.config.json';

/**
 * Resolves the configuration for a project root; reads nothing of the process (the entries,
 * src/cli.ts and src/index.ts, pass the working directory and the environment).
 * @param projectRoot absolute, or relative to `cwd`.
 * @param env where the `CHANGELOG_*` settings are read ({@link Config.env}).
 * @param cwd the working directory ({@link Config.cwd}): messages name files relative to it. Default: the root.
 * @throws {ChangelogSyncError} `E_CONFIG` when the file is not valid JSON, has unknown fields or
 *   wrong types, or holds a token; when the base URL is not a URL or carries credentials.
 */
export function loadConfig(projectRoot: string, env: NodeJS.ProcessEnv, cwd: string = projectRoot): Config {
  const root = resolve(cwd, projectRoot);
  const file = resolve(root, CONFIG_FILE);
  const shownPath = (path: string) => shownFrom(cwd, path);
  let fromFile: FileConfig = {};
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      const p = jsonSyntaxProblem(text, cause as Error);
      const shown = shownPath(file);
      throw new ChangelogSyncError('E_CONFIG', `${shown}:${p.line}:${p.column}: not valid JSON: ${p.message}`, { cause, file: shown, line: p.line, hint: p.fix });
    }
    if (json && typeof json === 'object' && ('token' in json || 'CHANGELOG_TOKEN' in json)) {
      throw new ChangelogSyncError('E_CONFIG', `${CONFIG_FILE} contains a token: tokens are read from the CHANGELOG_TOKEN environment variable only`, {
        file,
        field: 'token',
        hint: `remove the field from ${CONFIG_FILE} and revoke that token: it is now in your repository`,
      });
    }
    refuseWorkspaceToken(json, shownPath(file));
    const parsed = fileConfigSchema.safeParse(json);
    if (!parsed.success) throw configIssueError(parsed.error.issues[0]!, text, shownPath(file));
    fromFile = parsed.data;
  }
  const pick = (key: keyof typeof ENV): string | undefined => {
    const v = env[ENV[key]];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const positive = (key: 'rateWindowMs' | 'requestTimeoutMs' | 'leaseTtlMs' | 'maxResponseMb', fallback: number, unit = 'milliseconds'): number => {
    const raw = pick(key);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(n) || n <= 0) {
      throw new ChangelogSyncError('E_CONFIG', `${ENV[key]} must be a positive number of ${unit}, got ${JSON.stringify(raw)}`, { field: ENV[key] });
    }
    return n;
  };
  // Credentials in the URL would be printed and published with it (see base-url.ts).
  if (fromFile.baseUrl !== undefined) assertBaseUrl(fromFile.baseUrl, `${CONFIG_FILE}: baseUrl`, { inFile: true });
  if (pick('baseUrl') !== undefined) assertBaseUrl(pick('baseUrl')!, ENV.baseUrl);
  const rateWindowMs = positive('rateWindowMs', 60_000);
  const requestTimeoutMs = positive('requestTimeoutMs', 30_000);
  const leaseTtlMs = positive('leaseTtlMs', 60_000);
  if (leaseTtlMs > MAX_LEASE_TTL_MS) {
    throw new ChangelogSyncError('E_CONFIG', `${ENV.leaseTtlMs} must be at most ${MAX_LEASE_TTL_MS} (30 minutes), got ${leaseTtlMs}: other clones refuse a longer push lease`, { field: ENV.leaseTtlMs, hint: `set ${ENV.leaseTtlMs} to ${MAX_LEASE_TTL_MS} or less (default 60000)` });
  }
  const contentDir = resolve(root, pick('contentDir') ?? fromFile.contentDir ?? 'content');
  const stateDir = resolve(root, pick('stateDir') ?? fromFile.stateDir ?? '.changelog');
  return {
    baseUrl: pick('baseUrl') ?? fromFile.baseUrl,
    token: pick('token'),
    contentDir,
    stateDir,
    siteDir: resolveSiteDir(root, pick('siteDir') ?? fromFile.siteDir),
    outputDir: resolve(root, pick('outputDir') ?? fromFile.outputDir ?? '_site'),
    siteUrl: (pick('siteUrl') ?? fromFile.siteUrl ?? DEFAULT_SITE_URL).replace(/\/?$/, '/'),
    siteUrlConfigured: (pick('siteUrl') ?? fromFile.siteUrl) !== undefined,
    concurrency: fromFile.concurrency ?? 4,
    rateWindowMs,
    requestTimeoutMs,
    leaseTtlMs,
    maxResponseMb: positive('maxResponseMb', fromFile.maxResponseMb ?? DEFAULT_MAX_RESPONSE_MB, 'MB'),
    maxImageMb: fromFile.maxImageMb ?? DEFAULT_MAX_IMAGE_MB,
    imageBounds: { maxSide: fromFile.maxImageSide ?? DEFAULT_MAX_IMAGE_SIDE, maxMegapixels: fromFile.maxImageMegapixels ?? DEFAULT_MAX_IMAGE_MEGAPIXELS },
    imageDeadlineSeconds: fromFile.imageDeadlineSeconds ?? DEFAULT_IMAGE_DEADLINE_SECONDS,
    root,
    cwd,
    env,
    theme: pick('theme')?.toLowerCase() ?? fromFile.theme,
    buildCacheDir: buildCacheDir(root, pick('buildCache') ?? fromFile.buildCache),
    hostedPageUrl: hostedPage(pick('hostedPageUrl'), fromFile.hostedPageUrl),
    ...(fromFile.siteTitle !== undefined && { siteTitle: fromFile.siteTitle }),
    ...(fromFile.workspaces && { workspaces: workspaceEntries(fromFile.workspaces, { baseUrl: pick('baseUrl') ?? fromFile.baseUrl, contentDir, stateDir }, env, shownPath(file), Object.values(ENV)) }),
  };
}

/**
 * The single-workspace configuration of one workspace: its mirror, state, service root and
 * token in place of the top-level ones, so that every command runs on it unchanged.
 */
export function workspaceConfig(config: Config, workspace: WorkspaceEntry): Config {
  const rest = { ...config };
  delete rest.workspaces;
  return { ...rest, baseUrl: workspace.baseUrl, token: workspace.token, contentDir: workspace.contentDir, stateDir: workspace.stateDir, workspace };
}

/** The error of the schema's first issue: the field and its line; for an unknown key, the closest known one. */
function configIssueError(issue: z.core.$ZodIssue, text: string, file: string): ChangelogSyncError {
  const seeAlso = `the settings: README's configuration table, or ${CONFIG_FILE.replace('.json', '.schema.json')}`;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    // Inside a workspace entry: its own fields.
    const inWorkspace = issue.path.length > 0;
    const known = Object.keys(inWorkspace ? workspaceSchema.shape : fileConfigSchema.shape);
    const meant = didYouMean(key, known);
    const line = lineOfJsonKey(text, key, issue.path.map(String));
    const field = [...issue.path, key].join('.');
    return new ChangelogSyncError('E_CONFIG', `${file}${line ? `:${line}` : ''}: ${JSON.stringify(field)} is not a setting${meant ? `; did you mean ${JSON.stringify(meant)}?` : ''}`, {
      file,
      line,
      field,
      hint: meant ? `rename ${JSON.stringify(key)} to ${JSON.stringify(meant)}` : `remove it; the settings are ${known.filter((k) => k !== '$schema').join(', ')} (${seeAlso})`,
    });
  }
  const field = issue.path.join('.');
  const path = issue.path.map(String);
  // A missing field (a workspace's tokenEnv, the one required): the line of the object that lacks it.
  const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
  const where = missing ? path.slice(0, -1) : path;
  const line = where.length > 0 ? lineOfJsonKey(text, where.at(-1)!, where.slice(0, -1)) : undefined;
  if (missing && path.at(-1) === 'tokenEnv') {
    const key = path.at(-2)!;
    return new ChangelogSyncError('E_CONFIG', `${file}${line ? `:${line}` : ''}: ${field}: missing: workspace "${key}" names no environment variable for its token`, {
      file,
      line,
      field,
      hint: `add "tokenEnv": "${tokenEnvFor(key)}" to workspace "${key}" and set that variable (in GitHub Actions: a repository secret)`,
    });
  }
  // A record's key issue carries the key's own rule inside it.
  const message = issue.code === 'invalid_key' ? `not a workspace key: ${issue.issues[0]?.message ?? issue.message}` : issue.message;
  const fix = issue.code === 'invalid_key' ? `rename it to a key like ${JSON.stringify(keyLike(String(issue.path.at(-1))))}` : `correct ${field || 'the file'}`;
  return new ChangelogSyncError('E_CONFIG', `${file}${line ? `:${line}` : ''}: ${field}: ${message}`, { file, line, field, hint: `${fix} (${seeAlso})` });
}

/**
 * The configured hosted page: `CHANGELOG_HOSTED_PAGE_URL` ("off" for none) over `hostedPageUrl`.
 * @throws {ChangelogSyncError} `E_CONFIG` when the variable is neither "off" nor an http(s) URL.
 */
function hostedPage(fromEnv: string | undefined, fromFile: string | false | undefined): string | false | undefined {
  if (fromEnv === undefined) return fromFile;
  if (fromEnv.toLowerCase() === 'off') return false;
  if (!/^https?:\/\//i.test(fromEnv) || !URL.canParse(fromEnv)) {
    throw new ChangelogSyncError('E_CONFIG', `${ENV.hostedPageUrl} must be an http(s) URL or "off", got ${JSON.stringify(fromEnv)}`, {
      field: ENV.hostedPageUrl,
      hint: 'e.g. CHANGELOG_HOSTED_PAGE_URL=https://changelog.example.com/acme, or off for no link to the hosted page',
    });
  }
  return fromEnv;
}

/** The build cache folder: the configured one, none for `false` or "off", else the default under `node_modules/.cache/`. */
function buildCacheDir(root: string, configured: string | false | undefined): string | undefined {
  if (configured === false || configured === 'off') return undefined;
  return resolve(root, configured ?? DEFAULT_CACHE_DIR);
}

function resolveSiteDir(root: string, configured: string | undefined): string {
  if (configured !== undefined) return resolve(root, configured);
  const own = resolve(root, 'site');
  return existsSync(own) ? own : PACKAGED_SITE_DIR;
}
