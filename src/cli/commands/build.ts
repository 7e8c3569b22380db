/**
 * `changelog-sync build [--allow-private]`.
 * @module
 */
import { join, relative, sep } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { ENV, type Config } from '../../core/config.js';
import { isGitHubActions, setStepOutput } from '../output/github-actions.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { buildSite, type BuildResult } from '../../site/build/build.js';
import { loadFeedDates, recordFeedDates } from '../../site/data/feed-item.js';
import { recordSiteBuild, siteChange, siteInputs, type SiteChange, type SiteInputs } from '../../site/build/build-inputs.js';

/** Options of {@link buildCommand}. */
export interface BuildCommandOptions {
  /** Build a private workspace's site (`is_public` 0) too. */
  allowPrivate?: boolean;
  /** Build without the build cache (`--no-cache`): render every entry, neither read nor write the cache. */
  noCache?: boolean;
  /** The site's inputs as `sync` just computed them for its decision (not read again). */
  inputs?: SiteInputs;
}

/** Human summary of a build. */
export function formatBuild(r: BuildResult): string {
  const missing = r.unreadable.length ? `; ${r.unreadable.length} entry file${r.unreadable.length === 1 ? '' : 's'} could not be read and ${r.unreadable.length === 1 ? 'is' : 'are'} missing` : '';
  const cached = r.cache ? `; ${r.cache.pages.rendered} pages rendered, ${r.cache.pages.reused} from the page cache` : '';
  const imageCount = r.images.encoded + r.images.reused;
  const images = imageCount > 0 ? `; ${imageCount} image${imageCount === 1 ? '' : 's'}: ${r.images.encoded} encoded, ${r.images.reused} from the cache` : '';
  return `Built ${r.pages} pages (${r.files.length} files, ${r.indexed} entries searchable) into ${relative(process.cwd(), r.outputDir) || '.'} in ${(r.ms / 1000).toFixed(1)}s${cached}${images}${missing}\n${entriesShown(r.entries)}`;
}

/**
 * Why the site has fewer entry pages than there are entry files: "19 of 23 entries are on the
 * site; left out: 2 drafts, 2 scheduled after today" (docs/site.md#what-appears).
 */
export function entriesShown(e: BuildResult['entries']): string {
  const all = e.shown + e.drafts + e.scheduled;
  const out = [e.drafts ? `${e.drafts} draft${e.drafts === 1 ? '' : 's'} (not published)` : '', e.scheduled ? `${e.scheduled} scheduled after today (on the site from their date)` : ''].filter(Boolean);
  return `${e.shown} of ${all} entr${all === 1 ? 'y is' : 'ies are'} on the site${out.length ? `; left out: ${out.join(', ')}` : ''}`;
}

/**
 * Refuses to build for deployment without a site URL: in GitHub Actions a site built with
 * the local preview default would send feeds, canonical links, the sitemap and `latest.json`
 * to localhost. Locally the default stays (the preview).
 *
 * @throws {ChangelogSyncError} `E_CONFIG` (field `CHANGELOG_SITE_URL`) when running in
 *   GitHub Actions and neither `CHANGELOG_SITE_URL` nor `siteUrl` is set.
 */
export function requireSiteUrlInCi(config: Config, env: NodeJS.ProcessEnv = process.env): void {
  if (config.siteUrlConfigured || !isGitHubActions(env)) return;
  throw new ChangelogSyncError('E_CONFIG', `${ENV.siteUrl} is not set: a site built in GitHub Actions would point its feeds, canonical links and sitemap at ${config.siteUrl}`, {
    field: ENV.siteUrl,
    hint:
      'add an actions/configure-pages step with `id: pages` before the build and give the build `CHANGELOG_SITE_URL: ${{ vars.CHANGELOG_SITE_URL || steps.pages.outputs.base_url }}` ' +
      '(the workflow `changelog-sync init` writes does), or set the repository variable CHANGELOG_SITE_URL, or `siteUrl` in changelog.config.json',
  });
}

/**
 * Builds the site from the configuration with a progress bar and its warnings on stderr
 * (the build step of `build` and `sync`).
 * @throws {ChangelogSyncError} `E_CONFIG` for a private workspace without `allowPrivate`; `E_BUILD`.
 */
export async function buildWithProgress(config: Config, reporter: Reporter, options: BuildCommandOptions = {}): Promise<BuildResult> {
  reporter.info('Building the site ...');
  // One build and out (`build`, `sync`): Eleventy's ESM resolver, which lets a watching
  // Eleventy import a changed module again, is not needed; on Node 20 registering it starts a
  // loader thread that every later import waits on (a quarter of a second of start-up in a
  // profile). Eleventy's own switch (11ty/eleventy#3371); `dev` keeps the resolver.
  process.env.ELEVENTY_SKIP_ESM_RESOLVER ??= '1';
  const bar = reporter.counter('build');
  // Pages and feeds, then the search index: the bar moves per phase (Eleventy reports no per-page progress).
  bar.update(0, 2);
  // The inputs as the build reads them, recorded once it succeeded: the scheduled job's
  // `site_changed` compares the next run's inputs with them (src/site/build/build-inputs.ts).
  // Only the build that deploys records (in GitHub Actions): a writer's local preview
  // build would otherwise change the committed record, and collide with the job's.
  const inputs = isGitHubActions() ? (options.inputs ?? (await siteInputs(config))) : undefined;
  const result = await buildSite({
    contentDir: config.contentDir,
    siteDir: config.siteDir,
    outputDir: config.outputDir,
    siteUrl: config.siteUrl,
    root: config.root,
    baseUrl: config.baseUrl,
    hostedPageUrl: config.hostedPageUrl,
    theme: config.theme,
    allowPrivate: options.allowPrivate,
    cacheDir: options.noCache ? undefined : config.buildCacheDir,
    onPhase: bar.update,
    // The feeds' `updated` dates of the last recorded build (src/site/data/feed-item.ts).
    feedDates: await loadFeedDates(config.stateDir),
  }).finally(() => bar.stop());
  for (const w of result.warnings) reporter.warn(w);
  if (result.cache?.note) reporter.info(result.cache.note);
  if (result.cache?.pages.note) reporter.info(result.cache.pages.note);
  // An entry file the build could not read is missing from the site: each is named.
  for (const u of result.unreadable) {
    reporter.problem({ file: relative(process.cwd(), join(config.contentDir, u.file)).split(sep).join('/'), line: u.line, message: `${u.message} (not in the site until fixed)` });
  }
  // A build that left an entry out (exit 5: the workflow deploys nothing) is not recorded,
  // so the next run builds again rather than find the site unchanged.
  if (inputs && result.unreadable.length === 0) await recordSiteBuild(config.stateDir, inputs);
  // The feeds' dates, recorded by the build that deploys (for the same reason), even when an
  // entry was left out (its recorded date is kept): committed with the state, a fresh clone
  // gives every feed item the same `updated`.
  if (isGitHubActions() && result.feedDates) await recordFeedDates(config.stateDir, result.feedDates);
  return result;
}

/**
 * Builds the site and reports it.
 * @throws {ChangelogSyncError} `E_CONFIG` for a private workspace without `allowPrivate`, or
 *   in GitHub Actions without a site URL ({@link requireSiteUrlInCi}); `E_BUILD`.
 */
export async function buildCommand(config: Config, reporter: Reporter, options: BuildCommandOptions = {}): Promise<ExitCode> {
  requireSiteUrlInCi(config);
  const result = await buildWithProgress(config, reporter, options);
  reporter.result(formatBuild(result), {
    command: 'build',
    outputDir: result.outputDir,
    pages: result.pages,
    files: result.files.length,
    indexed: result.indexed,
    warnings: result.warnings,
    unreadable: result.unreadable,
    entries: result.entries,
    ms: result.ms,
    timings: result.timings,
    cache: result.cache,
    search: result.search,
    images: result.images,
  });
  return buildExitCode(result);
}

/** Exit code of a build: 5 when an entry file could not be read (it is not in the site), else 0 (README "Exit codes"). */
export function buildExitCode(result: Pick<BuildResult, 'unreadable'>): ExitCode {
  return result.unreadable.length > 0 ? EXIT.INVALID : EXIT.OK;
}

/**
 * Decides whether the site changed since the last deployed build (src/site/build/build-inputs.ts),
 * says so, and sets the step output `site_changed=true|false` (`$GITHUB_OUTPUT`, when set)
 * that gates the workflow's build and deployment.
 */
export async function reportSiteChange(config: Config, reporter: Reporter): Promise<SiteChange> {
  const change = await siteChange(config);
  reporter.info(`Site ${change.changed ? 'changed' : 'unchanged'}: ${change.reason}`);
  setStepOutput('site_changed', String(change.changed));
  return change;
}
