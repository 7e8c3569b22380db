/**
 * The programmatic Eleventy build (DESIGN.md "Layout": site/).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import Eleventy from '@11ty/eleventy';
import { ChangelogSyncError } from '../api/errors.js';
import changelogSitePlugin, { OPTIONS_KEY } from './plugin.js';

/** Options of {@link buildSite}. Paths absolute. */
export interface BuildOptions {
  contentDir: string;
  siteDir: string;
  outputDir: string;
  siteUrl: string;
  /** Project root: its `.eleventy.js`, when present, is the Eleventy configuration. */
  root: string;
}

/** What a build wrote. */
export interface BuildResult {
  outputDir: string;
  /** HTML pages written. */
  pages: number;
  /** Every file written, relative to the output directory. */
  files: string[];
  ms: number;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out;
}

/** The messages of an Eleventy error and its causes, outermost first. */
function describeBuildError(err: unknown): string {
  const parts: string[] = [];
  let e = err as { message?: string; cause?: unknown; originalError?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (e.message && !parts.includes(e.message)) parts.push(e.message);
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return parts.join(': ');
}

/**
 * Builds the site into `outputDir` (emptied first, so that a removed entry's page goes too).
 * @throws {ChangelogSyncError} `E_BUILD` when Eleventy fails (template error, missing layout).
 */
export async function buildSite(options: BuildOptions): Promise<BuildResult> {
  const started = Date.now();
  const configFile = join(options.root, '.eleventy.js');
  const configPath = existsSync(configFile) ? configFile : undefined;
  await rm(options.outputDir, { recursive: true, force: true });
  const eleventy = new Eleventy(options.siteDir, options.outputDir, {
    quietMode: true,
    configPath,
    config(eleventyConfig: Parameters<typeof changelogSitePlugin>[0]) {
      eleventyConfig.addGlobalData(OPTIONS_KEY, { contentDir: options.contentDir, siteUrl: options.siteUrl, siteDir: options.siteDir });
      if (!configPath) eleventyConfig.addPlugin(changelogSitePlugin);
    },
  });
  // Eleventy prints to stdout (even its "Wrote N files" in quiet mode): keep stdout for
  // our result (`--json`), and report failures through E_BUILD instead.
  eleventy.logger.overrideLogger({ log() {}, info() {}, warn() {}, error() {} });
  try {
    await eleventy.write();
  } catch (cause) {
    throw new ChangelogSyncError('E_BUILD', `Eleventy build failed: ${describeBuildError(cause)}`, {
      cause,
      hint: `check the templates in ${relative(process.cwd(), options.siteDir) || '.'}`,
    });
  }
  const files = existsSync(options.outputDir) ? (await walk(options.outputDir)).map((f) => relative(options.outputDir, f)) : [];
  return { outputDir: options.outputDir, pages: files.filter((f) => f.endsWith('.html')).length, files, ms: Date.now() - started };
}
