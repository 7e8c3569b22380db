/**
 * The worker threads changelog-sync starts, in one place: the piscina pool that converts
 * remote entries for a pull (`sync/pull/convert-pool.ts`), and the single thread of writing
 * the search index (`site/search/search-index-files.ts`). This module decides whether threads can run at all (the
 * compiled build), how many a pool gets, and how each is started.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import type { Piscina } from 'piscina';

/**
 * Whether this code runs compiled (`dist/*.js`), where the worker files exist. From the
 * TypeScript sources (vitest loads `src/*.ts`) there is no compiled worker to start, so
 * every pool runs its work in the calling thread.
 */
export const COMPILED_BUILD: boolean = import.meta.url.endsWith('.js');

/**
 * `execArgv` of every pool thread. piscina loads a task file with `require()` first and
 * falls back to `import()`; on Node 20.19+ `require()` of an ES module goes through
 * require(esm), which intermittently aborts the process with the native assertion
 * "facade->InstantiateModule(...)" in `ModuleWrap::CreateRequiredModuleFacade` (seen in CI
 * on Node 20.20.2). With require(esm) off in the workers, `require()` fails cleanly with
 * `ERR_REQUIRE_ESM` and piscina takes the `import()` path.
 *
 * A single thread ({@link startThread}) is not started through piscina: Node loads its
 * script as an ES module directly, and it keeps the process's own `execArgv`. The abort was
 * seen only on piscina's `require()`.
 */
const POOL_EXEC_ARGV: string[] = [...process.execArgv, '--no-experimental-require-module'];

/**
 * The young generation of every thread's heap, MB (`resourceLimits.maxYoungGenerationSizeMb`):
 * 48, the most V8 11 and 12 give it on their own (Node 20 and 22: two semi-spaces of 16 MB
 * and the large-object space beside them). V8 13 (Node 24) sizes it from the machine's memory,
 * larger, for no gain in time (docs/benchmarks.md, "On Node 24").
 */
const YOUNG_GENERATION_MB = 48;

/** A thread's `resourceLimits`: {@link YOUNG_GENERATION_MB}, and the old generation's limit when given. */
function resourceLimits(heapLimitMb: number | undefined): { maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb?: number } {
  return { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, ...(heapLimitMb ? { maxOldGenerationSizeMb: heapLimitMb } : {}) };
}

/**
 * The number of threads of a pool: `requested` when given, else one per core, at most `max`.
 *
 * @param requested an explicit count (options of tests and benchmarks); 0 means none.
 * @param max the most threads the pool gets by default.
 */
export function poolSize(requested: number | undefined, max: number): number {
  return requested ?? Math.min(max, availableParallelism());
}

/** How a pool is started ({@link startPool}). */
export interface PoolOptions {
  /** Threads, all started at once and kept until the pool is destroyed. */
  threads: number;
  /** Tasks a thread takes at a time (default 1). */
  concurrentTasksPerWorker?: number;
  /** Old-generation heap limit of each thread, MB; a thread over it is stopped and its tasks rejected. Default none. The young generation is {@link YOUNG_GENERATION_MB}. */
  heapLimitMb?: number;
}

/**
 * Starts a piscina pool running `worker` (a compiled module whose default export handles
 * one task). piscina is loaded here, when a pool is wanted: a small pull or build never
 * loads it. The caller destroys the pool.
 *
 * @param worker the URL of the compiled worker module (next to its pool, `new URL('./<name>-worker.js', import.meta.url)`).
 */
export async function startPool<Task, Result>(worker: URL, options: PoolOptions): Promise<Piscina<Task, Result>> {
  const { Piscina } = await import('piscina');
  // Options left out, not set to undefined: piscina spreads them over its defaults.
  return new Piscina<Task, Result>({
    filename: worker.href,
    minThreads: options.threads,
    maxThreads: options.threads,
    execArgv: POOL_EXEC_ARGV,
    ...(options.concurrentTasksPerWorker ? { concurrentTasksPerWorker: options.concurrentTasksPerWorker } : {}),
    resourceLimits: resourceLimits(options.heapLimitMb),
  });
}

/**
 * Starts one worker thread running `script` with `workerData` (structured-cloned). Its
 * stdout is piped and drained, so nothing it prints reaches ours (`--json` output).
 *
 * Its young generation is {@link YOUNG_GENERATION_MB}.
 *
 * @public Used by `test/core/threads.test.ts` (its resource limits).
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
