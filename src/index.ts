/**
 * The programmatic interface of changelog-sync: `import { pull } from 'changelog-sync'`.
 *
 * The CLI's engine without its printing: each function resolves the configuration as the CLI
 * does (options over `CHANGELOG_*` variables over `changelog.config.json` over the defaults; the
 * README's configuration table) and returns what it did as data. Nothing goes to stdout or stderr;
 * warnings go to {@link ProjectOptions.onWarning}; failures throw a {@link ChangelogSyncError} with
 * a stable {@link ErrorCode}. No exit codes: read the results (`conflicts`, `rejected`, ...).
 *
 * @example
 * ```ts
 * import { pull, push, build } from 'changelog-sync';
 * const pulled = await pull({ root: '/path/to/project', baseUrl: 'https://changelog.example.com', token });
 * const pushed = await push({ root: '/path/to/project', baseUrl: 'https://changelog.example.com', token });
 * const site = await build({ root: '/path/to/project', siteUrl: 'https://changelog.example.com/' });
 * ```
 */
import { ENV, loadConfig, type Config } from './core/config.js';
import { pull as mirrorPull } from './sync/pull/pull.js';
import type { PullResult } from './sync/pull/pull-run.js';
import { push as mirrorPush } from './sync/push/push.js';
import { syncWorkspace, type SyncResult } from './sync/sync-job.js';
import type { PushResult } from './sync/push/push-run.js';
import { openServiceSession, type ServiceSession } from './sync/service-session.js';
import { openStateFormat } from './sync/store/state-format.js';
import { assertInsideProject } from './core/project-path.js';
import type { BuildResult } from './site/pipeline/build.js';
import { buildProject } from './site/pipeline/build-project.js';
import { engineOptions, type BuildCall, type PullCall, type PushCall } from './options/engine-options.js';

export { ChangelogSyncError, isErrorCode, type ChangelogSyncErrorOptions, type ErrorCode } from './core/errors.js';
export { startEmulator, type EmulatorLimits, type EmulatorOptions, type RequestLogRecord, type RunningEmulator } from './emulator/server.js';
export type { EmulatorFaults } from './emulator/faults.js';
export { loadSeed } from './emulator/seed.js';
export type { EmulatorStore } from './emulator/store.js';
export type { Config } from './core/config.js';
export type { PullItem, PullProblem, PullResult } from './sync/pull/pull-run.js';
export type { PushedItem, PushPlanItem, PushResult } from './sync/push/push-run.js';
export type { BuildResult } from './site/pipeline/build.js';

/**
 * Where the project is and how to reach its service. A field given wins over its `CHANGELOG_*`
 * variable and `changelog.config.json`; relative paths resolve against {@link ProjectOptions.root}.
 */
export interface ProjectOptions {
  /** The call's working directory: `root` resolves against it, messages name files relative to it. Default `process.cwd()`, read here only. */
  cwd?: string;
  /** Project root: where `changelog.config.json` is read and relative paths start; absolute, or relative to {@link ProjectOptions.cwd}. Default: `cwd`. */
  root?: string;
  /**
   * The call's environment: `CHANGELOG_*` settings, `GITHUB_ACTIONS=true` (the build that deploys),
   * and git's for the push lease (PATH, HOME, credentials). Default `process.env`; `{}` reads none.
   */
  env?: NodeJS.ProcessEnv;
  /** The service root, e.g. `https://changelog.example.com` (`/api/...` is added). Without credentials in it. */
  baseUrl?: string;
  /** The workspace access token (`Authorization: Bearer`). Never written anywhere. */
  token?: string;
  /** The mirror: `entries/*.md` and `_data/*.json`. Default `content`. */
  contentDir?: string;
  /** The sync state: state, journal, request ledger, conflicts. Default `.changelog`. */
  stateDir?: string;
  /** The team's Eleventy templates. Default `site` when it exists, else the packaged templates. */
  siteDir?: string;
  /** Where the site is built. Default `_site`. */
  outputDir?: string;
  /** Public URL of the built site (feeds, canonical links); its path is the base path. Default `http://localhost:8080/`. */
  siteUrl?: string;
  /** Called with each warning (a lock taken over, a request ledger that cannot be saved). Default: dropped. */
  onWarning?: (message: string) => void;
}

/** Options of {@link pull}: `prune`, with it `force`, and `dryRun` (plan only: write nothing, convert nothing). */
export type PullOptions = ProjectOptions & Pick<PullCall, 'prune' | 'force' | 'dryRun'>;

/** Options of {@link push}: `dryRun` (plan only: send nothing, write nothing), `noLease`, and `signal` (aborted: the POSTs in flight settle, the rest is pending, the lease is released). */
export type PushOptions = ProjectOptions & Pick<PushCall, 'dryRun' | 'noLease' | 'signal'>;

/** Options of {@link build}: `allowPrivate` (build the site of a private workspace too) and `noCache` (neither read nor write the build cache). */
export type BuildOptions = ProjectOptions & Pick<BuildCall, 'allowPrivate' | 'noCache'>;

/** What {@link status} finds: the plans of a pull and of a push, neither carried out. */
export type StatusResult = SyncResult;

/**
 * Resolves the configuration as the CLI does, with the given options over the environment.
 * @throws {ChangelogSyncError} `E_CONFIG` for an invalid `changelog.config.json` or setting.
 */
export function resolveConfig(options: ProjectOptions = {}): Config {
  // The library's entry: the process's working directory and environment are read here only, as the defaults.
  const cwd = options.cwd ?? process.cwd();
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  // A setting given wins over its variable (ProjectOptions names them as ENV does).
  const given: Partial<Record<keyof typeof ENV, unknown>> = options;
  for (const key of Object.keys(ENV) as Array<keyof typeof ENV>) {
    const value = given[key];
    if (typeof value === 'string') env[ENV[key]] = value;
  }
  return loadConfig(options.root ?? cwd, env, cwd);
}

/** Warnings to {@link ProjectOptions.onWarning} with the token masked, as the CLI masks everything it prints. */
function warningsTo(options: ProjectOptions, config: Config): (message: string) => void {
  const token = config.token;
  return (message) => options.onWarning?.(token ? message.split(token).join('***') : message);
}

/** Runs `work` with a client for the configured service, saving the request ledger at the end. */
async function withService<T>(options: ProjectOptions & { dryRun?: boolean }, work: (config: Config, session: ServiceSession) => Promise<T>): Promise<T> {
  const config = resolveConfig(options);
  // Nothing is read or written through a symbolic link out of the project.
  await assertInsideProject(config);
  // An older state format is migrated first (not by a dry run); a newer one refused (E_STATE_FORMAT).
  const session = await openServiceSession(config, { onWarning: warningsTo(options, config) }, { dryRun: options.dryRun });
  try {
    return await work(config, session);
  } finally {
    await session.close();
  }
}

/**
 * Mirrors the workspace's entries, tags and settings into the content directory, as
 * `changelog-sync pull` does: recovery of an interrupted run first, then only what changed
 * (docs/sync.md, "What pull does").
 *
 * @returns what was written, updated, renamed, adopted; conflicts (local file kept, remote
 *   copy under the state directory's `conflicts/`), local edits, entries gone remotely.
 * @throws {ChangelogSyncError} `E_CONFIG` without a base URL or token; `E_STATE_FORMAT` when
 *   the state directory is of a newer state format (nothing written; an older one is
 *   migrated first); `E_WORKSPACE_MISMATCH` when the content directory mirrors another workspace; `E_LOCKED` when another process
 *   holds the content directory; `E_PRUNE_REFUSED`; `E_OUTSIDE_PROJECT`; any HTTP error of
 *   the client (`E_AUTH`, `E_NETWORK`, `E_RATE_LIMITED`, ...) before anything is written.
 */
export async function pull(options: PullOptions = {}): Promise<PullResult> {
  return withService(options, (config, { client }) =>
    mirrorPull({ client, ...engineOptions.pull(config, { prune: options.prune, force: options.force, dryRun: options.dryRun }) }),
  );
}

/**
 * Creates a remote entry from every valid local entry file without `identifier`, at most
 * once each, under the rate limits, and writes the identifier back into the file, as
 * `changelog-sync push` does (docs/sync.md, "Push guarantees"). The service cannot edit or
 * delete an entry once created.
 *
 * @returns the plan, what was pushed (created, reconciled or adopted), what is pending or
 *   deferred to the next run (the day's request budget), and the rejected files with their
 *   problems (not sent).
 * @throws {ChangelogSyncError} `E_CONFIG` without a base URL or token; `E_LOCKED`;
 *   `E_LEASE` when `origin` cannot be read (see {@link PushOptions.noLease});
 *   `E_WORKSPACE_MISMATCH`; `E_OUTSIDE_PROJECT`; an HTTP error of the client when nothing
 *   could be settled.
 */
export async function push(options: PushOptions = {}): Promise<PushResult> {
  return withService(options, (config, { client }) =>
    mirrorPush({ client, ...engineOptions.push(config, { dryRun: options.dryRun, noLease: options.noLease, signal: options.signal }) }),
  );
}

/**
 * What `pull` and `push` would do now, as `changelog-sync status` prints it: both run as
 * dry runs, so nothing is written or sent but the request ledger (its GETs count against
 * the day's 1,440).
 *
 * @throws {ChangelogSyncError} as {@link pull} and {@link push}.
 */
export async function status(options: ProjectOptions = {}): Promise<StatusResult> {
  // The sync job's dry run: one workspace read and one listing serve both plans.
  return withService({ ...options, dryRun: true }, (config, { client }) =>
    syncWorkspace({ client, ...engineOptions.status(config) }),
  );
}

/**
 * Builds the static site from the content directory into the output directory with
 * Eleventy and Pagefind, as `changelog-sync build` does (docs/site.md). Needs no service.
 * As the CLI's, a build in GitHub Actions (`GITHUB_ACTIONS=true`) records the site's inputs
 * and the feeds' dates in the state directory (docs/sync.md, "File formats").
 *
 * @returns the pages and files written, the search index's size, warnings, and the entry
 *   files that could not be read (missing from the site).
 * @throws {ChangelogSyncError} `E_CONFIG` for a private workspace without `allowPrivate` or
 *   an unknown configured theme; `E_OUTSIDE_PROJECT` for a symbolic link out of the
 *   project; `E_BUILD` when Eleventy fails; `E_STATE_FORMAT` when the state directory is of a
 *   newer state format (nothing written; an older one is migrated first).
 */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const config = resolveConfig(options);
  await openStateFormat(config.stateDir, { migrate: true, root: config.root });
  // Eleventy reads this from the process's environment; one build needs no ESM resolver (src/cli.ts, `skipEleventyEsmResolver`).
  process.env.ELEVENTY_SKIP_ESM_RESOLVER ??= '1';
  const result = await buildProject(...engineOptions.build(config, { allowPrivate: options.allowPrivate, noCache: options.noCache }));
  const warn = warningsTo(options, config);
  for (const w of result.warnings) warn(w);
  return result;
}
