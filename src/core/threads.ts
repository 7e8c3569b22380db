/**
 * The worker threads changelog-sync starts, in one place: the single threads of an
 * Eleventy run of a large mirror (`site/build/eleventy-run.ts`) and of the page cache's pack jobs
 * (`site/cache/page-pack.ts`). This module decides whether threads can run at all (the
 * compiled build) and how each is started.
 *
 * @module
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';

/**
 * Whether this code runs compiled (`dist/*.js`), where the worker files exist. From the
 * TypeScript sources (vitest loads `src/*.ts`) there is no compiled worker to start, so
 * the work runs in the calling thread and Eleventy runs there too.
 */
export const COMPILED_BUILD: boolean = import.meta.url.endsWith('.js');

/**
 * The young generation of every thread's heap, MB (`resourceLimits.maxYoungGenerationSizeMb`):
 * 48, the most V8 11 and 12 give it on their own (Node 20 and 22: two semi-spaces of 16 MB
 * and the large-object space beside them). V8 13 (Node 24) sizes it from the machine's memory,
 * larger: a cold build of 10,000 entries peaked higher with the Eleventy thread's own size
 * than with this one, in the same time (docs/benchmarks.md, "The speed machinery").
 */
const YOUNG_GENERATION_MB = 48;

/** A thread's `resourceLimits`: {@link YOUNG_GENERATION_MB}, and the old generation's limit when given. */
function resourceLimits(heapLimitMb: number | undefined): { maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb?: number } {
  return { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, ...(heapLimitMb ? { maxOldGenerationSizeMb: heapLimitMb } : {}) };
}

/**
 * Starts one worker thread running `script` with `workerData` (structured-cloned). Its
 * stdout is piped and drained, so nothing it prints reaches ours (`--json` output).
 *
 * Its young generation is {@link YOUNG_GENERATION_MB}.
 *
 * @param heapLimitMb old-generation heap limit of the thread, MB; over it, the thread's
 *   `error` event carries `ERR_WORKER_OUT_OF_MEMORY`. Default none.
 */
export function startThread(script: URL, workerData: unknown, heapLimitMb?: number): Worker {
  const worker = new Worker(script, {
    workerData,
    stdout: true,
    resourceLimits: resourceLimits(heapLimitMb),
  });
  worker.stdout.resume();
  return worker;
}

/** What a one-task thread ({@link runTaskOnThread}) answers: its result, or the error that stopped it. */
type TaskReply<Result> = { ok: true; result: Result } | { ok: false; message: string; code?: string };

/**
 * Runs `task` on a worker thread of its own, started for it and ended by it: `script` is a
 * compiled module that calls {@link answerTask} with the function doing the work. For work of
 * synchronous file calls (thousands of small files written one after the other are several
 * times faster than a promise each), which the other core runs while this thread renders.
 *
 * @param script the URL of the compiled worker module.
 * @param task its `workerData` (structured-cloned).
 * @param what what the thread does, for the error when it ends without answering ("writing the search index into /x").
 * @returns the task's result.
 * @throws {Error} the task's error (its message, and its `code` when it had one), or the thread's own failure.
 */
export async function runTaskOnThread<Result>(script: URL, task: unknown, what: string): Promise<Result> {
  const worker = startThread(script, task);
  return new Promise<Result>((resolve, reject) => {
    let replied = false;
    worker.once('message', (reply: TaskReply<Result>) => {
      replied = true;
      if (reply.ok) resolve(reply.result);
      else reject(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!replied) reject(new Error(`the thread ${what} ended (exit code ${code}) before it was done`));
    });
  });
}

/**
 * In a worker module run by {@link runTaskOnThread}: runs `work` on the thread's task and
 * posts its result, or its error's message and `code`.
 */
export function answerTask<Task, Result>(work: (task: Task) => Result): void {
  let reply: TaskReply<Result>;
  try {
    reply = { ok: true, result: work(workerData as Task) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    reply = { ok: false, message: (err as Error).message, ...(typeof code === 'string' ? { code } : {}) };
  }
  parentPort?.postMessage(reply);
}
