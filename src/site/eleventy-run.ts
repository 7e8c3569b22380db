/**
 * One Eleventy run (the pages and feeds of a build), on a worker thread: when the thread
 * ends, its heap (every page Eleventy keeps until the end of a run) goes with it, before
 * Pagefind indexes the site. In a 10,000-entry build that is the difference between the
 * two running side by side in memory or one after the other.
 *
 * @module
 */
import { Worker } from 'node:worker_threads';
import type Eleventy from '@11ty/eleventy';
import type changelogSitePlugin from './plugin.js';
import type { ChangelogSitePluginOptions } from './plugin.js';

/** What one Eleventy run needs. Plain data: it is sent to a worker thread. */
export interface EleventyRun {
  /** Eleventy's input (the staged site). */
  inputDir: string;
  outputDir: string;
  /** A project's `.eleventy.js`; without one the plugin is added here. */
  configPath?: string;
  pluginOptions: ChangelogSitePluginOptions;
  /**
   * Old-generation heap limit of the worker thread, MB. A limit makes V8 collect garbage
   * before the heap grows far past what is live; without one it can double. Default none.
   */
  heapLimitMb?: number;
}

/** A failed run: the messages of Eleventy's error and its causes, outermost first. */
export class EleventyRunError extends Error {
  override name = 'EleventyRunError';
  /** True when the worker thread ran out of its heap limit (see {@link EleventyRun.heapLimitMb}). */
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
 * Lets Eleventy write pages without blocking rendering: synchronous mkdir and write calls of
 * 10,000 pages cost seconds of the main thread. Eleventy 3.1 has the option
 * (`configureTemplateHandling({ writeMode: "async" })`) but reads it from its TemplateConfig,
 * which never receives it; it is set there directly, after `init()` created it.
 */
function writePagesAsynchronously(eleventy: InstanceType<typeof Eleventy>): void {
  const templateConfig = (eleventy as unknown as { eleventyConfig?: { templateHandling?: { writeMode?: string } } }).eleventyConfig;
  if (templateConfig && templateConfig.templateHandling === undefined) templateConfig.templateHandling = { writeMode: 'async' };
}

/**
 * Runs Eleventy in this thread.
 * @throws {EleventyRunError} with Eleventy's messages when the run fails.
 */
export async function runEleventy(run: EleventyRun): Promise<void> {
  // Loaded here, not at the top: a build on a worker thread loads them in that thread only.
  const { default: Eleventy } = await import('@11ty/eleventy');
  const { default: changelogSitePlugin, OPTIONS_KEY } = await import('./plugin.js');
  // Site data sent to a worker thread arrives as a copy, no longer frozen: frozen, Eleventy
  // passes it to every page as it is instead of deep-copying it.
  if (run.pluginOptions.siteData && !Object.isFrozen(run.pluginOptions.siteData)) Object.freeze(run.pluginOptions.siteData);
  const eleventy = new Eleventy(run.inputDir, run.outputDir, {
    quietMode: true,
    configPath: run.configPath,
    config(eleventyConfig: Parameters<typeof changelogSitePlugin>[0]) {
      eleventyConfig.addGlobalData(OPTIONS_KEY, run.pluginOptions);
      if (!run.configPath) eleventyConfig.addPlugin(changelogSitePlugin);
    },
  });
  // Eleventy prints to stdout (even its "Wrote N files" in quiet mode): keep stdout for
  // our result (`--json`); failures are reported through the error instead.
  eleventy.logger.overrideLogger({ log() {}, info() {}, warn() {}, error() {} });
  try {
    await eleventy.init();
    writePagesAsynchronously(eleventy);
    await eleventy.write();
  } catch (cause) {
    throw new EleventyRunError(describeBuildError(cause), { cause });
  }
}

/** From this many entry files on, Eleventy runs on a worker thread (below, starting one costs more than it saves). */
export const ISOLATE_THRESHOLD = 2000;

/**
 * Runs Eleventy on a worker thread for a large mirror, else in this thread (also from
 * TypeScript sources, as in tests, which have no compiled worker).
 *
 * @param entryFiles the number of entry files (decides the thread).
 * @throws {EleventyRunError} with Eleventy's messages when the run fails.
 */
export async function runEleventyIsolated(run: EleventyRun, entryFiles: number): Promise<void> {
  if (entryFiles < ISOLATE_THRESHOLD || !import.meta.url.endsWith('.js')) return runEleventy(run);
  const script = new URL('./eleventy-worker.js', import.meta.url);
  const worker = new Worker(script, {
    workerData: run,
    stdout: true,
    resourceLimits: run.heapLimitMb ? { maxOldGenerationSizeMb: run.heapLimitMb } : undefined,
  });
  worker.stdout.resume(); // anything Eleventy still prints is not our output
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    worker.on('message', (m: { ok: boolean; message?: string }) => {
      settled = true;
      if (m.ok) resolve();
      else reject(new EleventyRunError(m.message ?? 'unknown error'));
    });
    worker.on('error', (err) => {
      settled = true;
      const failure = new EleventyRunError(describeBuildError(err), { cause: err });
      failure.outOfMemory = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      reject(failure);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new EleventyRunError(`the build thread stopped (exit code ${code})`));
    });
  });
  await worker.terminate();
}
