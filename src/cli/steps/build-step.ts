/**
 * The build step of `build` and `sync`: progress bar, warnings, unreadable files, summary, exit code,
 * the refusal to deploy without a site URL, and the scheduled job's `site_changed` decision.
 */
import { join, relative } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { shownFrom, shownPaths } from '../../core/file-error.js';
import { ENV, type Config } from '../../core/config.js';
import { isGitHubActions } from '../../core/ci-env.js';
import { setStepOutput } from '../output/github-actions.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import type { BuildResult } from '../../site/pipeline/build.js';
import { engineOptions, type BuildCall } from '../../options/engine-options.js';
import { siteChange, type SiteChange } from '../../site/pipeline/build-inputs.js';

/**
 * Human summary of a build.
 * @param cwd the working directory the output folder is named relative to (`Config.cwd`).
 */
export function formatBuild(r: BuildResult, cwd: string): string {
  const missing = r.unreadable.length ? `; ${r.unreadable.length} entry file${r.unreadable.length === 1 ? '' : 's'} could not be read and ${r.unreadable.length === 1 ? 'is' : 'are'} missing` : '';
  const cached = r.cache ? `; ${r.cache.pages.rendered} pages rendered, ${r.cache.pages.reused} from the page cache` : '';
  const imageCount = r.images.encoded + r.images.reused;
  const images = imageCount > 0 ? `; ${imageCount} image${imageCount === 1 ? '' : 's'}: ${r.images.encoded} encoded, ${r.images.reused} from the cache` : '';
  return `Built ${r.pages} pages (${r.files.length} files, ${r.indexed} entries searchable) into ${relative(cwd, r.outputDir) || '.'} in ${(r.ms / 1000).toFixed(1)}s${cached}${images}${missing}\n${entriesShown(r.entries)}`;
}

/**
 * Why the site has fewer entry pages than there are entry files: "19 of 23 entries are on the
 * site; left out: 2 drafts, 2 scheduled after today" (docs/site.md#what-appears).
 */
function entriesShown(e: BuildResult['entries']): string {
  const all = e.shown + e.drafts + e.scheduled + e.unfinished;
  const out = [
    e.drafts ? `${e.drafts} draft${e.drafts === 1 ? '' : 's'} (not published)` : '',
    e.scheduled ? `${e.scheduled} scheduled after today (on the site from their date)` : '',
    e.unfinished ? `${e.unfinished} still holding the template of \`new\` (named above)` : '',
  ].filter(Boolean);
  return `${e.shown} of ${all} entr${all === 1 ? 'y is' : 'ies are'} on the site${out.length ? `; left out: ${out.join(', ')}` : ''}`;
}

/**
 * Refuses to build for deployment without a site URL: feeds, canonical links, the sitemap and
 * `latest.json` would point at localhost. Locally the preview's default stays.
 * @throws {ChangelogSyncError} `E_CONFIG` (field `CHANGELOG_SITE_URL`) when running in
 *   GitHub Actions (`GITHUB_ACTIONS=true` in `Config.env`) and neither `CHANGELOG_SITE_URL` nor `siteUrl` is set.
 */
export function requireSiteUrlInCi(config: Config): void {
  if (config.siteUrlConfigured || !isGitHubActions(config.env)) return;
  throw new ChangelogSyncError('E_CONFIG', `${ENV.siteUrl} is not set: a site built in GitHub Actions would point its feeds, canonical links and sitemap at ${config.siteUrl}`, {
    field: ENV.siteUrl,
    hint:
      'add an actions/configure-pages step with `id: pages` before the build and give the build `CHANGELOG_SITE_URL: ${{ vars.CHANGELOG_SITE_URL || steps.pages.outputs.base_url }}` ' +
      '(the workflow `changelog-sync init` writes does), or set the repository variable CHANGELOG_SITE_URL, or `siteUrl` in changelog.config.json',
  });
}

/**
 * Builds the site with a progress bar and its warnings on stderr.
 * @throws {ChangelogSyncError} `E_CONFIG` for a private workspace without `allowPrivate`; `E_BUILD`.
 */
export async function buildWithProgress(config: Config, reporter: Reporter, options: BuildCall): Promise<BuildResult> {
  reporter.info('Building the site ...');
  // Loaded when a build runs: `sync --skip-build` loads none of the site build's modules.
  const { buildProject } = await import('../../site/pipeline/build-project.js');
  const bar = reporter.counter('build');
  // Pages and feeds, then the search index: the bar moves per phase (Eleventy reports no per-page progress).
  bar.update(0, 2);
  const result = await buildProject(...engineOptions.build(config, { ...options, onPhase: bar.update })).finally(() => bar.stop());
  // The engine names files by their absolute paths: shown relative to the working directory.
  for (const w of result.warnings) reporter.warn(shownPaths(w, config.cwd));
  if (result.cache?.note) reporter.info(result.cache.note);
  if (result.cache?.pages.note) reporter.info(result.cache.pages.note);
  // A new entry that still holds `new`'s placeholder lines is not published: each is named.
  for (const u of result.unfinished) {
    reporter.problem({ file: shownFrom(config.cwd, join(config.contentDir, u.file)), line: u.line, message: `${u.message}: not published until the template's lines are replaced with the entry's text` });
  }
  // An entry file the build could not read is missing from the site: each is named.
  for (const u of result.unreadable) {
    reporter.problem({ file: shownFrom(config.cwd, join(config.contentDir, u.file)), line: u.line, message: `${u.message} (not in the site until fixed)` });
  }
  return result;
}

/** Exit code of a build: 5 when an entry file could not be read or still holds the template of `new` (it is not in the site), else 0 (README "Exit codes"). */
export function buildExitCode(result: Pick<BuildResult, 'unreadable'> & Partial<Pick<BuildResult, 'unfinished'>>): ExitCode {
  return result.unreadable.length + (result.unfinished?.length ?? 0) > 0 ? EXIT.INVALID : EXIT.OK;
}

/** Decides whether the site changed since the last deployed build (src/site/pipeline/build-inputs.ts), says so, and sets `site_changed` in `$GITHUB_OUTPUT`, which gates the deployment. */
export async function reportSiteChange(config: Config, reporter: Reporter): Promise<SiteChange> {
  const change = await siteChange(config);
  reporter.info(`Site ${change.changed ? 'changed' : 'unchanged'}: ${change.reason}`);
  setStepOutput('site_changed', String(change.changed), config.env);
  return change;
}
