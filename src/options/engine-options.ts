/**
 * The one mapping from the configuration ({@link Config}) and a call's own options (`--dry-run`,
 * `--prune`, `--no-lease`, ...) to each engine entry's options: pull, push, the site build. The
 * CLI (through `cli/steps/`) and the library (`src/index.ts`) both call it, so a setting reaches
 * the engine alike from either (a library push sends links and images under the site URL too).
 * It sits above `sync/` and `site/` and below `cli/` and `src/index.ts` (docs/architecture.md, "Layers").
 */
import { isGitHubActions } from '../core/ci-env.js';
import type { Config } from '../core/config.js';
import { allowsLoopback } from '../service/guarded-fetch.js';
import type { BuildProjectOptions } from '../site/pipeline/build-project.js';
import { configuredMedia } from '../sync/pull/media-mirror.js';
import type { PullOptions } from '../sync/pull/pull-run.js';
import { localImageProbe, probeImage } from '../sync/push/image-probe.js';
import { leaseRef } from '../sync/push/lease-ref.js';
import type { PushOptions } from '../sync/push/push-run.js';
import type { SyncOptions } from '../sync/sync-job.js';

/** A pull's own options, beside the configuration: `--prune`, `--force`, `--dry-run`, and a progress callback. */
export type PullCall = Pick<PullOptions, 'prune' | 'force' | 'dryRun' | 'onConverted'>;

/** A push's own options, beside the configuration: `--dry-run`, the stop signal (SIGTERM, SIGINT, or the library caller's) and progress callbacks. */
export type PushCall = Pick<PushOptions, 'dryRun' | 'signal' | 'onProgress' | 'onSent'> & {
  /** Take no push lease on the git remote (`--no-lease`), whatever the configuration says: at most once per directory only. Without it, an unreadable `origin` is `E_LEASE`. */
  noLease?: boolean;
};

/** A site build's own options, beside the configuration. */
export type BuildCall = Pick<BuildProjectOptions, 'allowPrivate' | 'noCache' | 'inputs' | 'pathsChecked' | 'onPhase'>;

/** `sync/pull/pull.ts`'s `pull` options but the client and reads: directories, and the image mirror's bounds, deadline and origin (`configuredMedia`). */
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
 * `sync/push/push.ts`'s `push` options but the client: directories, concurrency, the push lease
 * (none with `noLease` or `pushLease: false`; git with the configuration's environment; a
 * workspace's own ref), the site
 * URL links and local images are sent under, the image size warning, and how an image is checked
 * before its entry is sent (loopback only for a service on loopback, the emulator).
 */
function pushOptions(config: Config, call: PushCall = {}): Omit<PushOptions, 'client'> {
  const probing = { allowLoopback: allowsLoopback(config.baseUrl) };
  return {
    contentDir: config.contentDir,
    stateDir: config.stateDir,
    dryRun: call.dryRun,
    concurrency: config.concurrency,
    lease: call.noLease || config.pushLease === false ? false : { ttlMs: config.leaseTtlMs, env: config.env, ...(config.workspace && { ref: leaseRef(config.workspace.key) }) },
    signal: call.signal,
    onProgress: call.onProgress,
    onSent: call.onSent,
    siteUrl: config.siteUrlConfigured || config.localImages ? config.siteUrl : undefined,
    siteDir: config.siteDir,
    maxImageMb: config.maxImageMb,
    probeImage: config.localImages ? localImageProbe(config.siteUrl, [config.contentDir, config.siteDir], probing) : (url) => probeImage(url, probing),
  };
}

/** `site/pipeline/build-project.ts`'s `buildProject` arguments: the configuration and the call's options, with whether it deploys (`GITHUB_ACTIONS=true` in `Config.env`: it records its inputs). */
function buildOptions(config: Config, call: BuildCall = {}): [Config, BuildProjectOptions] {
  return [config, { ...call, deploying: isGitHubActions(config.env) }];
}

/** `sync/sync-job.ts`'s `syncWorkspace` options for `status`: a dry run, one workspace read and listing serving both plans. */
function statusOptions(config: Config): Omit<SyncOptions, 'client'> {
  return { contentDir: config.contentDir, stateDir: config.stateDir, dryRun: true, push: { concurrency: config.concurrency } };
}

/** The mapping, one method per engine entry, called through this object so a test can spy on what the CLI and the library hand the engine. */
export const engineOptions = { pull: pullOptions, push: pushOptions, build: buildOptions, status: statusOptions };
