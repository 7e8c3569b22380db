/**
 * The one mapping from the configuration ({@link Config}) and a call's own options (a dry
 * run, `--prune`, `--no-lease`, ...) to the options of each engine entry: pull, push and the
 * site build. The CLI's commands (through `cli/reports/`) and the library (`src/index.ts`)
 * both call it, so that a setting reaches the engine the same way from either: a push from
 * the library sends an entry that links to another entry, or shows an image, under the
 * configured site URL as the CLI's does.
 *
 * It sits above the engine peers (`sync/`, `site/`), which never import each other, and
 * below `cli/` and `src/index.ts` (docs/architecture.md, "Layers").
 *
 * @module
 */
import { isGitHubActions } from '../core/ci-env.js';
import type { Config } from '../core/config.js';
import { allowsLoopback } from '../service/guarded-fetch.js';
import type { BuildProjectOptions } from '../site/build/build-project.js';
import { configuredMedia } from '../sync/pull/media-mirror.js';
import type { PullOptions } from '../sync/pull/pull-run.js';
import { localImageProbe, probeImage } from '../sync/push/image-probe.js';
import type { PushOptions } from '../sync/push/push-run.js';
import type { SyncOptions } from '../sync/sync-job.js';

/** A pull's own options, beside the configuration. */
export interface PullCall {
  /** Remove files whose remote entry is gone (`--prune`). */
  prune?: boolean;
  /** With `prune`: remove even what the prune guard refuses (`--force`). */
  force?: boolean;
  /** Plan only: write nothing, convert nothing (`--dry-run`). */
  dryRun?: boolean;
  /** Called as entries are converted: `done` of `total` (a progress bar). */
  onConverted?: (done: number, total: number) => void;
}

/** A push's own options, beside the configuration. */
export interface PushCall {
  /** Plan only: send nothing, write nothing (`--dry-run`). */
  dryRun?: boolean;
  /** Take no push lease on the git remote (`--no-lease`), whatever the configuration says. */
  noLease?: boolean;
  /** Aborted: no POST starts after it (SIGTERM, SIGINT, or the library caller's signal). */
  signal?: AbortSignal | undefined;
  /** Each progress line (a wait for the rate limit, a lease renewed). */
  onProgress?: (message: string) => void;
  /** Called as POSTs settle: `done` of `total` (a progress bar). */
  onSent?: (done: number, total: number) => void;
}

/** A site build's own options, beside the configuration. */
export type BuildCall = Pick<BuildProjectOptions, 'allowPrivate' | 'noCache' | 'inputs' | 'pathsChecked' | 'onPhase'>;

/**
 * The options of `sync/pull/pull.ts`'s `pull` (without the client and the service reads)
 * from the configuration: the content and state directories and the image mirror's
 * bounds, deadline and origin (`configuredMedia`).
 */
function pullOptions(config: Config, call: PullCall = {}): Omit<PullOptions, 'client' | 'reads'> {
  return {
    contentDir: config.contentDir,
    stateDir: config.stateDir,
    prune: call.prune,
    force: call.force,
    dryRun: call.dryRun,
    onConverted: call.onConverted,
    media: configuredMedia(config),
  };
}

/**
 * The options of `sync/push/push.ts`'s `push` (without the client) from the configuration:
 * directories, concurrency, the push lease (none with `noLease` or `pushLease: false`; git
 * runs with the configuration's environment), the
 * site URL that links between entries and local images are sent under (when configured, or
 * for the demo's local images), the image size warning, and how an image is checked before
 * its entry is sent (loopback only for a service on loopback, the emulator: never by content).
 */
function pushOptions(config: Config, call: PushCall = {}): Omit<PushOptions, 'client'> {
  const probing = { allowLoopback: allowsLoopback(config.baseUrl) };
  return {
    contentDir: config.contentDir,
    stateDir: config.stateDir,
    dryRun: call.dryRun,
    concurrency: config.concurrency,
    lease: call.noLease || config.pushLease === false ? false : { ttlMs: config.leaseTtlMs, env: config.env },
    signal: call.signal,
    onProgress: call.onProgress,
    onSent: call.onSent,
    siteUrl: config.siteUrlConfigured || config.localImages ? config.siteUrl : undefined,
    siteDir: config.siteDir,
    maxImageMb: config.maxImageMb,
    probeImage: config.localImages ? localImageProbe(config.siteUrl, [config.contentDir, config.siteDir], probing) : (url) => probeImage(url, probing),
  };
}

/**
 * The arguments of `site/build/build-project.ts`'s `buildProject`: the configuration (from
 * which it reads the directories, the site URL, the theme and the build cache) and its
 * options: whether this build deploys (a build in GitHub Actions, `GITHUB_ACTIONS=true` in
 * the environment the run was given, `Config.env`, deploys and records its inputs), and the
 * call's own.
 */
function buildOptions(config: Config, call: BuildCall = {}): [Config, BuildProjectOptions] {
  return [config, { ...call, deploying: isGitHubActions(config.env) }];
}

/**
 * The options of `sync/sync-job.ts`'s `syncWorkspace` (without the client) for `status`: the
 * sync job's dry run, whose one workspace read and one listing serve both plans.
 */
function statusOptions(config: Config): Omit<SyncOptions, 'client'> {
  return { contentDir: config.contentDir, stateDir: config.stateDir, dryRun: true, push: { concurrency: config.concurrency } };
}

/**
 * The mapping, one method per engine entry: {@link pullOptions}, {@link pushOptions},
 * {@link buildOptions} and {@link statusOptions}. Callers call it through this object, so
 * that a test can observe what the CLI's commands and the library each hand the engine (a
 * spy on a method).
 */
export const engineOptions = { pull: pullOptions, push: pushOptions, build: buildOptions, status: statusOptions };
