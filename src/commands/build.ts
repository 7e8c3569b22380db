/**
 * `changelog-sync build`.
 * @module
 */
import { relative } from 'node:path';
import type { Config } from '../config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { buildSite, type BuildResult } from '../site/build.js';

/** Human summary of a build. */
export function formatBuild(r: BuildResult): string {
  return `Built ${r.pages} pages (${r.files.length} files) into ${relative(process.cwd(), r.outputDir) || '.'} in ${(r.ms / 1000).toFixed(1)}s`;
}

/** Builds the site and reports it. */
export async function buildCommand(config: Config, reporter: Reporter): Promise<ExitCode> {
  reporter.info('Building the site ...');
  const result = await buildSite({ contentDir: config.contentDir, siteDir: config.siteDir, outputDir: config.outputDir, siteUrl: config.siteUrl, root: config.root });
  reporter.result(formatBuild(result), { command: 'build', outputDir: result.outputDir, pages: result.pages, files: result.files.length, ms: result.ms });
  return EXIT.OK;
}
