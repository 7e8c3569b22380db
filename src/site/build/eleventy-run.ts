/**
 * One Eleventy run (the pages and feeds of a build), on a worker thread for a large mirror:
 * the thread loads Eleventy while the build reads and renders the entries, and when it
 * ends its heap (every page Eleventy keeps until the end of a run) goes with it.
 *
 * @module
 */
import { resolve as resolvePath } from 'node:path';
import type Eleventy from '@11ty/eleventy';
import type { ChangelogSitePluginOptions } from './plugin.js';
import { COMPILED_BUILD, startThread } from '../../core/threads.js';

/** What one Eleventy run needs. Plain data: it is sent to a worker thread. */
export interface EleventyRun {
  /** Eleventy's input (the staged site). */
  inputDir: string;
  outputDir: string;
  /** A project's `.eleventy.js`; without one the plugin is added here. */
  configPath?: string;
  /** The site's base path (Eleventy's `pathPrefix`, e.g. `/changelog/`). Default `/`. */
  pathPrefix?: string;
  pluginOptions: ChangelogSitePluginOptions;
  /**
   * Old-generation heap limit of the worker thread, MB. A limit makes V8 collect garbage
   * before the heap grows far past what is live; without one it can double. Default none.
   */
  heapLimitMb?: number;
  /**
   * Write pages with asynchronous calls (see {@link writePagesAsynchronously}). Default
   * false. {@link BuildEleventy.run} sets it for a run in this thread.
   */
  asyncWrites?: boolean;
}

/** What a run wrote: absolute paths of its pages and feeds, and of the files it copied through. */
export interface EleventyWritten {
  files: string[];
}

/** A failed run: the messages of Eleventy's error and its causes, outermost first. */
export class EleventyRunError extends Error {
  override name = 'EleventyRunError';
  /** True when the worker thread ran out of its heap limit (see {@link EleventyRun.heapLimitMb}). */
  outOfMemory = false;
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
 * Lets Eleventy write pages without blocking rendering, for a run in the build's own thread
 * (a small mirror), whose other work (Pagefind's requests) goes on meanwhile. Eleventy 3.1
 * has the option (`configureTemplateHandling({ writeMode: "async" })`) but reads it from its
 * TemplateConfig, which never receives it; it is set there directly, after `init()` created
 * it. A large mirror's run on a worker thread writes synchronously, Eleventy's default:
 * asynchronously, Eleventy starts every page's write at once, and 10,000 pending writes held
 * more memory (at the end of the run, and left in the process after it) for no measurable
 * gain in time, whether over an earlier site or into an empty folder.
 */
function writePagesAsynchronously(eleventy: InstanceType<typeof Eleventy>): void {
  const templateConfig = (eleventy as unknown as { eleventyConfig?: { templateHandling?: { writeMode?: string } } }).eleventyConfig;
  if (templateConfig && templateConfig.templateHandling === undefined) templateConfig.templateHandling = { writeMode: 'async' };
}

/**
 * Keeps Eleventy's benchmark warnings ("Benchmark ... Transform") off stderr: its
 * "Configuration" benchmarks are made before quiet mode applies and print on their own
 * (with a base path, the HTML base plugin's URL transform is such a benchmark).
 */
function quietBenchmarks(eleventy: InstanceType<typeof Eleventy>): void {
  const bench = (eleventy as unknown as { bench?: { getAll?(): Record<string, { setIsVerbose?(verbose: boolean): void }> } }).bench;
  for (const group of Object.values(bench?.getAll?.() ?? {})) group.setIsVerbose?.(false);
}

/**
 * The files Eleventy reports from `write()`: `[passthrough copies, templates]`, each copy a
 * `{ map: { source: destination } }`, each template an `{ outputPath }` (`false` when it
 * writes nothing). Files written by plugins on their own (the CSS bundle) are not in it.
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

/**
 * Eleventy and the site plugin, loaded once per thread. Loaded when first needed, not at the
 * top: a build on a worker thread loads them in that thread only.
 */
function loadEleventy(): NonNullable<typeof loading> {
  loading ??= Promise.all([import('@11ty/eleventy'), import('./plugin.js')]);
  return loading;
}

/**
 * Starts loading Eleventy in this thread for a run in this thread: its
 * modules take about half a second to load, which then passes while the build reads the
 * entries and waits for files and Pagefind.
 */
export function preloadEleventy(): void {
  loadEleventy().catch(() => undefined); // a failure is reported by the run
}

/**
 * Runs Eleventy in this thread.
 * @returns what it wrote.
 * @throws {EleventyRunError} with Eleventy's messages when the run fails.
 */
export async function runEleventy(run: EleventyRun): Promise<EleventyWritten> {
  const [{ default: Eleventy }, { default: changelogSitePlugin, OPTIONS_KEY }] = await loadEleventy();
  const { siteData } = run.pluginOptions;
  // Site data sent to a worker thread arrives as a copy, no longer frozen: frozen, Eleventy
  // passes it to every page as it is instead of deep-copying it.
  if (siteData && !Object.isFrozen(siteData)) Object.freeze(siteData);
  const eleventy = new Eleventy(run.inputDir, run.outputDir, {
    quietMode: true,
    configPath: run.configPath,
    pathPrefix: run.pathPrefix,
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
    if (run.asyncWrites) writePagesAsynchronously(eleventy);
    quietBenchmarks(eleventy);
    return { files: writtenFiles(await eleventy.write()) };
  } catch (cause) {
    throw new EleventyRunError(describeBuildError(cause), { cause });
  }
}

/**
 * From this many entry files on, Eleventy runs on a worker thread: it loads Eleventy there
 * while this thread reads and renders the entries. Weighed on a quiet machine (alternated
 * with plain Eleventy + Pagefind, docs/benchmarks.md): the thread bought wall time at
 * 10,000 entries and a little at 1,000; at 300 nothing, and at 100 it cost time (starting a
 * thread and copying the data to it).
 */
export const ISOLATE_THRESHOLD = 500;

/**
 * From this many pages to render on, a build whose thread was not started with it (a page
 * cache was expected to leave few pages) still runs Eleventy on a new worker thread: it
 * loads Eleventy only then, with nothing to overlap, and gets a copy of the whole site data,
 * which a warm build of 10,000 entries rendering a few hundred pages paid for in full
 * (slower than in this thread, on a quiet machine).
 */
const LATE_THREAD_THRESHOLD = 2000;

/**
 * Whether Eleventy renders `pages` pages on a worker thread: from {@link ISOLATE_THRESHOLD} on
 * when its thread was `started` with the build, from {@link LATE_THREAD_THRESHOLD} on when not;
 * from compiled code only (TypeScript sources, as in tests, have no compiled worker). The one
 * rule of where a build's Eleventy runs ({@link startBuildEleventy}).
 */
function runsOnWorker(pages: number, started = true): boolean {
  return pages >= (started ? ISOLATE_THRESHOLD : LATE_THREAD_THRESHOLD) && COMPILED_BUILD;
}

/** A worker thread with Eleventy loading or loaded, waiting for its one run (see {@link startEleventyThread}). */
interface EleventyThread {
  /**
   * Runs Eleventy on the thread, then ends the thread.
   * @returns what it wrote.
   * @throws {EleventyRunError} with Eleventy's messages when the run fails, with `outOfMemory`
   *   when the thread ran out of its heap limit.
   */
  run(run: EleventyRun): Promise<EleventyWritten>;
  /** Ends the thread without a run (the build failed before it). */
  close(): Promise<void>;
}

/**
 * Starts the worker thread of a build's Eleventy run before the run is known: it loads
 * Eleventy and the site plugin (about half a second of module loading) while the build
 * reads and renders the entries on other threads, and runs when {@link EleventyThread.run}
 * gives it the run. Only from compiled code ({@link runsOnWorker}).
 *
 * @public Used by `test/site/build/eleventy-run.test.ts`, through `dist/`, which knip does not map back to `src/`.
 * @param heapLimitMb old-generation heap limit of the thread, MB (see {@link EleventyRun.heapLimitMb}); the run's own is not used.
 */
export function startEleventyThread(heapLimitMb?: number): EleventyThread {
  // Anything Eleventy still prints on the thread is not our output: startThread drains it.
  const worker = startThread(new URL('./eleventy-worker.js', import.meta.url), undefined, heapLimitMb);
  // Listened to from the start: the thread can fail (out of memory) while it loads Eleventy.
  const outcome = new Promise<EleventyWritten>((resolve, reject) => {
    let settled = false;
    worker.on('message', (m: { ok: boolean; message?: string; written?: EleventyWritten }) => {
      settled = true;
      // Without the list of what was written, nothing may be pruned: a failure.
      if (m.ok && m.written) resolve(m.written);
      else reject(new EleventyRunError(m.message ?? 'the build thread reported no list of the files it wrote'));
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
  outcome.catch(() => undefined); // awaited by run(); a closed thread's is nobody's
  let started = false;
  return {
    async run(run) {
      if (started) throw new Error('an Eleventy thread runs once');
      started = true;
      worker.postMessage(run);
      try {
        return await outcome;
      } finally {
        await worker.terminate();
      }
    },
    async close() {
      await worker.terminate();
    },
  };
}

/**
 * A build's Eleventy: loading from the build's start, and run where {@link place} decides,
 * once, when the pages to render are known.
 */
export interface BuildEleventy {
  /**
   * Decides where Eleventy runs for `pages` pages to render ({@link runsOnWorker}): true on
   * a worker thread. Decided by the first call; later calls answer the same.
   */
  place(pages: number): boolean;
  /**
   * Runs Eleventy where {@link place} put it; a second run (after one out of its heap
   * limit) goes to a new thread.
   * @throws {EleventyRunError} with Eleventy's messages when the run fails, with
   *   `outOfMemory` when a worker thread ran out of its heap limit.
   * @throws {Error} when called before {@link place}.
   */
  run(run: EleventyRun): Promise<EleventyWritten>;
  /** Ends the thread started early, if it had no run (the build failed before it). */
  close(): Promise<void>;
}

/**
 * Starts loading Eleventy as a build starts, while the entries are read and rendered: on a
 * worker thread ({@link startEleventyThread}) for a large mirror, or in this thread
 * ({@link preloadEleventy}). A guess, for the loading only: a page cache that is likely to
 * leave few pages to render keeps it in this thread, which saves starting a thread and
 * copying the data to it; {@link BuildEleventy.place} decides.
 *
 * @param entryFiles the entry files of the mirror.
 * @param likelyWarm whether a page cache is likely to leave few pages to render (a pack exists).
 * @param heapLimitMb the heap limit of the worker thread, MB (see {@link EleventyRun.heapLimitMb}).
 */
export function startBuildEleventy(entryFiles: number, likelyWarm: boolean, heapLimitMb: number): BuildEleventy {
  let thread = !likelyWarm && runsOnWorker(entryFiles) ? startEleventyThread(heapLimitMb) : undefined;
  if (!thread) preloadEleventy();
  let onWorker: boolean | undefined;
  return {
    place(pages) {
      onWorker ??= runsOnWorker(pages, thread !== undefined);
      return onWorker;
    },
    async run(run) {
      if (onWorker === undefined) throw new Error("the build's Eleventy runs once it is placed");
      const early = thread;
      thread = undefined;
      if (onWorker) return (early ?? startEleventyThread(run.heapLimitMb)).run(run);
      await early?.close();
      // In this thread (also from TypeScript sources, as in tests, which have no compiled worker).
      return runEleventy({ ...run, asyncWrites: true });
    },
    async close() {
      await thread?.close();
    },
  };
}
