/**
 * Eleventy on a worker thread of its own, for a build that renders a large mirror without a
 * page cache: the thread loads Eleventy while this thread reads and renders the entries, then
 * renders and writes the pages on the second core while this one writes the images and feeds
 * Pagefind, and its heap (every page Eleventy keeps until the end of a run) ends with it.
 * Speed machinery: weighed in docs/benchmarks.md, "The speed machinery".
 */
import { Worker } from 'node:worker_threads';
import { describeBuildError, EleventyRunError, preloadEleventy, runEleventy, type EleventyRun, type EleventyWritten } from './eleventy-run.js';

/**
 * From this many entry files on, a build without a page cache runs Eleventy on a thread. Below
 * it, starting the thread and copying the site data to it cost about what the thread buys.
 */
export const THREAD_THRESHOLD = 500;

/** Whether this code runs compiled (`dist/*.js`): from the TypeScript sources (vitest) there is no worker file to start. */
const COMPILED = import.meta.url.endsWith('.js');

/**
 * The old-generation heap limit of the thread, MB: 512, or 48 KB an entry above that, a little
 * over what a build of the corpus keeps live an entry at its peak. A limit makes V8 collect
 * before the heap grows to twice what is live; a run that needs more runs again without one.
 */
function heapLimitFor(entryFiles: number): number {
  return Math.max(512, Math.ceil((entryFiles * 48) / 1024));
}

/** A worker thread loading Eleventy, waiting for its one run. */
interface EleventyThread {
  /**
   * Runs Eleventy on the thread, then ends the thread.
   * @throws {EleventyRunError} with Eleventy's messages, `outOfMemory` when the thread ran out of its heap limit.
   * @throws {Error} on a second call.
   */
  run(run: EleventyRun): Promise<EleventyWritten>;
  /** Ends the thread without a run (the build failed before it). */
  close(): Promise<void>;
}

/**
 * Starts the thread (eleventy-worker.ts), which loads Eleventy at once. Its stdout is drained:
 * what Eleventy prints there is not our output (`--json`).
 * @public Used by `test/site/pipeline/eleventy-thread.test.ts`, through `dist/`.
 * @param heapLimitMb its old-generation heap limit, MB; none when undefined.
 */
export function startEleventyThread(heapLimitMb?: number): EleventyThread {
  const worker = new Worker(new URL('./eleventy-worker.js', import.meta.url), { stdout: true, resourceLimits: heapLimitMb ? { maxOldGenerationSizeMb: heapLimitMb } : {} });
  worker.stdout.resume();
  // Listened to from the start: the thread can run out of memory while it loads Eleventy.
  const outcome = new Promise<EleventyWritten>((resolve, reject) => {
    worker.once('message', (m: { written?: EleventyWritten; message?: string }) => {
      if (m.written) resolve(m.written);
      else reject(new EleventyRunError(m.message ?? 'the build thread reported no list of the files it wrote'));
    });
    worker.once('error', (err) => {
      const failure = new EleventyRunError(describeBuildError(err), { cause: err });
      failure.outOfMemory = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      reject(failure);
    });
    // After a message or an error this settles nothing.
    worker.once('exit', (code) => reject(new EleventyRunError(`the build thread stopped (exit code ${code})`)));
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

/** A build's Eleventy, loading from the build's start, on a thread or in this one. */
export interface BuildEleventy {
  /** Whether it runs on a worker thread. */
  onThread: boolean;
  /**
   * Runs Eleventy once. On the thread, a run out of its heap limit runs again here, without
   * one, over the same output, and `onRetry` says so.
   * @throws {EleventyRunError} with Eleventy's messages when the run fails.
   */
  run(run: EleventyRun, onRetry: (heapLimitMb: number) => void): Promise<EleventyWritten>;
  /** Ends the thread if it had no run (the build failed before it). */
  close(): Promise<void>;
}

/**
 * Starts loading Eleventy as a build starts: on a thread from {@link THREAD_THRESHOLD} entry
 * files when no page cache is expected (a page cache leaves few pages to render, which this
 * thread does without copying the site data), from compiled code only; else here.
 * @param entryFiles the mirror's entry files.
 * @param pageCacheExpected whether the build cache holds a page pack.
 * @param heapLimitMb the thread's heap limit, MB (tests set a small one).
 */
export function startBuildEleventy(entryFiles: number, pageCacheExpected: boolean, heapLimitMb = heapLimitFor(entryFiles)): BuildEleventy {
  let thread = COMPILED && !pageCacheExpected && entryFiles >= THREAD_THRESHOLD ? startEleventyThread(heapLimitMb) : undefined;
  if (!thread) preloadEleventy();
  return {
    onThread: thread !== undefined,
    async run(run, onRetry) {
      const own = thread;
      thread = undefined;
      if (!own) return runEleventy(run);
      try {
        return await own.run(run);
      } catch (err) {
        if (!(err instanceof EleventyRunError && err.outOfMemory)) throw err;
        onRetry(heapLimitMb);
        return runEleventy(run);
      }
    },
    async close() {
      await thread?.close();
    },
  };
}
