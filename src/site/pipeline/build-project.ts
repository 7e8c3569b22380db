/**
 * The project's site build as `build`, `sync` and the library run it: {@link buildSite} over the
 * configured folders with the last recorded feed dates; the build that deploys records its inputs
 * and feed dates (`build-inputs.ts`, `site/data/feed-item.ts`). Prints nothing.
 */
import type { Config } from '../../core/config.js';
import { isGitHubActions } from '../../core/ci-env.js';
import { loadFeedDates, recordFeedDates } from '../data/feed-item.js';
import { buildSite, type BuildResult } from './build.js';
import { recordSiteBuild, siteInputs, type SiteInputs } from './build-inputs.js';

/** Options of {@link buildProject}. */
export interface BuildProjectOptions {
  /** Build a private workspace's site (`is_public` 0) too. */
  allowPrivate?: boolean;
  /** Build without the build cache (`--no-cache`): render every entry, neither read nor write the cache. */
  noCache?: boolean;
  /** The site's inputs as `sync` just computed them for its `site_changed` decision (not read again). */
  inputs?: SiteInputs;
  /**
   * Whether this is the build that deploys and records its inputs and feed dates; default
   * `GITHUB_ACTIONS=true` in `Config.env`. A local build does not: it would collide with the job's committed record.
   */
  deploying?: boolean;
  /** The project's paths were checked in this job already (`assertInsideProject`, e.g. by `sync` before its pull). */
  pathsChecked?: boolean;
  /** Called as the build moves from one phase to the next: `done` of `total` (for a progress bar). */
  onPhase?: (done: number, total: number) => void;
}

/**
 * Builds the configured project's site into its output directory.
 * @throws {ChangelogSyncError} as {@link buildSite}: `E_CONFIG` for a private workspace
 *   without `allowPrivate` or an unknown theme; `E_OUTSIDE_PROJECT`; `E_BUILD`.
 */
export async function buildProject(config: Config, options: BuildProjectOptions = {}): Promise<BuildResult> {
  const deploying = options.deploying ?? isGitHubActions(config.env);
  // Recorded once the build succeeded: the next run's `site_changed` compares with them (build-inputs.ts).
  const inputs = deploying ? (options.inputs ?? (await siteInputs(config))) : undefined;
  const result = await buildSite({
    contentDir: config.contentDir,
    siteDir: config.siteDir,
    outputDir: config.outputDir,
    siteUrl: config.siteUrl,
    root: config.root,
    baseUrl: config.baseUrl,
    hostedPageUrl: config.hostedPageUrl,
    theme: config.theme,
    imageBounds: config.imageBounds,
    allowPrivate: options.allowPrivate,
    cacheDir: options.noCache ? undefined : config.buildCacheDir,
    pathsChecked: options.pathsChecked,
    onPhase: options.onPhase,
    // The feeds' `updated` dates of the last recorded build (site/data/feed-item.ts).
    feedDates: await loadFeedDates(config.stateDir),
    // Several workspaces: one section each, from its mirror (docs/site.md "Several products").
    sections: config.workspaces?.map((w) => ({ key: w.key, title: w.title, contentDir: w.contentDir })),
    siteTitle: config.siteTitle,
  });
  if (deploying) {
    // A build that left an entry out (exit 5: the workflow deploys nothing) is not recorded,
    // so the next run builds again rather than find the site unchanged.
    if (inputs && result.unreadable.length === 0) await recordSiteBuild(config.stateDir, inputs);
    // The feeds' dates, recorded even when an entry was left out (its recorded date is
    // kept): committed with the state, a fresh clone gives every feed item the same `updated`.
    if (result.feedDates) await recordFeedDates(config.stateDir, result.feedDates);
  }
  return result;
}
