/**
 * `changelog-sync build [--allow-private]`.
 * @module
 */
import { relative } from 'node:path';
import type { Config } from '../config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { buildSite, type BuildResult } from '../site/build.js';

/** Options of {@link buildCommand}. */
export interface BuildCommandOptions {
  /** Build a private workspace's site (`is_public` 0) too. */
  allowPrivate?: boolean;
}

/** Human summary of a build. */
export function formatBuild(r: BuildResult): string {
  return `Built ${r.pages} pages (${r.files.length} files, ${r.indexed} entries searchable) into ${relative(process.cwd(), r.outputDir) || '.'} in ${(r.ms / 1000).toFixed(1)}s`;
}

/**
 * Builds the site from the configuration with a progress bar and its warnings on stderr
 * (the build step of `build` and `sync`).
 * @throws {ChangelogSyncError} `E_CONFIG` for a private workspace without `allowPrivate`; `E_BUILD`.
 */
export async function buildWithProgress(config: Config, reporter: Reporter, options: BuildCommandOptions = {}): Promise<BuildResult> {
  reporter.info('Building the site ...');
  const bar = reporter.counter('build');
  // Pages and feeds, then the search index: the bar moves per phase (Eleventy reports no per-page progress).
  bar.update(0, 2);
  const result = await buildSite({
    contentDir: config.contentDir,
    siteDir: config.siteDir,
    outputDir: config.outputDir,
    siteUrl: config.siteUrl,
    root: config.root,
    baseUrl: config.baseUrl,
    theme: config.theme,
    allowPrivate: options.allowPrivate,
    onPhase: bar.update,
  }).finally(() => bar.stop());
  for (const w of result.warnings) reporter.warn(w);
  return result;
}

/**
 * Builds the site and reports it.
 * @throws {ChangelogSyncError} `E_CONFIG` for a private workspace without `allowPrivate`; `E_BUILD`.
 */
export async function buildCommand(config: Config, reporter: Reporter, options: BuildCommandOptions = {}): Promise<ExitCode> {
  const result = await buildWithProgress(config, reporter, options);
  reporter.result(formatBuild(result), {
    command: 'build',
    outputDir: result.outputDir,
    pages: result.pages,
    files: result.files.length,
    indexed: result.indexed,
    warnings: result.warnings,
    ms: result.ms,
    timings: result.timings,
  });
  return EXIT.OK;
}
