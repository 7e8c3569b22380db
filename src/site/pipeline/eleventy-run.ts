/**
 * One Eleventy run (a build's pages and feeds); Eleventy loads as the build starts, while the entries are read.
 */
import { resolve as resolvePath } from 'node:path';
import type Eleventy from '@11ty/eleventy';
import type { ChangelogSitePluginOptions } from './plugin.js';

/** What one Eleventy run needs: plain data, sent to a worker thread for a large mirror (eleventy-thread.ts). */
export interface EleventyRun {
  /** Eleventy's input (the staged site). */
  inputDir: string;
  outputDir: string;
  /** A project's `.eleventy.js`; without one the plugin is added here. */
  configPath?: string;
  /** The site's base path (Eleventy's `pathPrefix`, e.g. `/changelog/`). Default `/`. */
  pathPrefix?: string;
  pluginOptions: ChangelogSitePluginOptions;
}

/** What a run wrote: absolute paths of its pages and feeds, and of the files it copied through. */
export interface EleventyWritten {
  files: string[];
}

/** A failed run: the messages of Eleventy's error and its causes, outermost first. */
export class EleventyRunError extends Error {
  override name = 'EleventyRunError';
  /** True when a run on a worker thread ran out of its heap limit (eleventy-thread.ts). */
  outOfMemory = false;
}

/** The messages of an Eleventy error and its causes, outermost first. */
export function describeBuildError(err: unknown): string {
  const parts: string[] = [];
  let e = err as { message?: string; cause?: unknown; originalError?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (e.message && !parts.includes(e.message)) parts.push(e.message);
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return parts.join(': ');
}

/**
 * Keeps Eleventy's "Benchmark ... Transform" lines off the console: its benchmark groups are made
 * before its quiet mode applies, and print slow steps (the base plugin's transform, `xmlChars`) on
 * every run, a timing report for Eleventy's developers. Groups made after `init` follow the quiet mode.
 */
export function quietBenchmarks(eleventy: InstanceType<typeof Eleventy>): void {
  const bench = (eleventy as unknown as { bench?: { getAll?(): Record<string, { setIsVerbose?(verbose: boolean): void }> } }).bench;
  for (const group of Object.values(bench?.getAll?.() ?? {})) group.setIsVerbose?.(false);
}

/**
 * The files Eleventy reports from `write()`: `[copies, templates]`, each copy `{ map: { source: destination } }`,
 * each template `{ outputPath }` (`false`: nothing). Plugins' own files (the CSS bundle) are not in it.
 */
function writtenFiles(results: unknown): string[] {
  const [copies, templates] = Array.isArray(results) ? (results as [unknown, unknown]) : [];
  // The build prunes what is not in this list: an Eleventy that answers otherwise must not
  // read as one that wrote nothing.
  if (!Array.isArray(copies) || !Array.isArray(templates)) throw new Error("Eleventy's write() did not list the files it wrote ([copies, templates] expected)");
  const files: string[] = [];
  for (const copy of copies as Array<{ map?: Record<string, string> }>) files.push(...Object.values(copy?.map ?? {}));
  for (const page of templates as Array<{ outputPath?: unknown }>) {
    if (typeof page?.outputPath === 'string') files.push(page.outputPath);
  }
  return files.map((f) => resolvePath(f));
}

let loading: Promise<[typeof import('@11ty/eleventy'), typeof import('./plugin.js')]> | undefined;

/** Eleventy and the site plugin, loaded once when first needed: a command that builds nothing never loads them. */
function loadEleventy(): NonNullable<typeof loading> {
  loading ??= Promise.all([import('@11ty/eleventy'), import('./plugin.js')]);
  return loading;
}

/** Starts loading Eleventy (about half a second) while the build reads the entries. */
export function preloadEleventy(): void {
  loadEleventy().catch(() => undefined); // a failure is reported by the run
}

/**
 * Runs Eleventy.
 * @returns what it wrote.
 * @throws {EleventyRunError} with Eleventy's messages when the run fails.
 */
export async function runEleventy(run: EleventyRun): Promise<EleventyWritten> {
  const [{ default: Eleventy }, { default: changelogSitePlugin, OPTIONS_KEY }] = await loadEleventy();
  const eleventy = new Eleventy(run.inputDir, run.outputDir, {
    quietMode: true,
    configPath: run.configPath,
    pathPrefix: run.pathPrefix,
    config(eleventyConfig: Parameters<typeof changelogSitePlugin>[0]) {
      eleventyConfig.addGlobalData(OPTIONS_KEY, run.pluginOptions);
      if (!run.configPath) eleventyConfig.addPlugin(changelogSitePlugin);
    },
  });
  // Eleventy prints to stdout even in quiet mode; stdout is our result's (`--json`), failures go through the error.
  eleventy.logger.overrideLogger({ log() {}, info() {}, warn() {}, error() {} });
  try {
    await eleventy.init();
    quietBenchmarks(eleventy);
    return { files: writtenFiles(await eleventy.write()) };
  } catch (cause) {
    throw new EleventyRunError(describeBuildError(cause), { cause });
  }
}
