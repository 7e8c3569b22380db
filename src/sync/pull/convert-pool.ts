/**
 * Converts remote entries to mirror files and writes them, on worker threads when there
 * are many.
 *
 * Converting HTML to Markdown is the bulk of a cold pull (several times slower per entry
 * before the JIT has warmed up): a pull of 10,000 entries spreads it over
 * worker threads (a piscina pool, see `threads.ts`), one per core, in chunks. Files are
 * written by the main thread alone, chunk by chunk as texts arrive: creating files in one
 * directory from several threads contends for the directory's lock and is slower than one
 * writer (measured: 10,000 files, 2 threads ~2x slower than 1). Few jobs (the usual
 * incremental pull) run inline: starting workers costs more than it saves. When running
 * from the TypeScript sources (tests), where no compiled worker exists, jobs run inline
 * too.
 *
 * @module
 */
import type { Piscina } from 'piscina';
import type { MirrorJob, MirrorOutcome } from './mirror-writer.js';
import { COMPILED_BUILD, poolSize, startPool } from '../../core/threads.js';

/** Receives each job's outcome, by the job's index. */
export type OnOutcome = (index: number, outcome: MirrorOutcome) => void;
/** Called right before job `index`'s file is written, with its text's hashes (see `BeforeWrite` in mirror-writer.ts). */
export type BeforeWriteAt = (index: number, hash: string, synced: string) => void;

/** Below this many jobs, everything runs inline. */
const POOL_MIN_JOBS = 200;
/** Threads of a pool by default (one per core, at most this many). */
const MAX_THREADS = 4;
/** Jobs per task sent to a worker. */
const CHUNK = 100;
/**
 * Heap limit of a conversion thread, in MB: a backstop behind the per-entry limit of
 * `convert/html-to-markdown.ts` (an entry at that limit takes a few hundred MB). A thread over it is stopped
 * and its chunk's entries are reported as not converted; the process goes on.
 */
const WORKER_HEAP_MB = 1536;

/** Options of {@link runMirrorJobs}. */
export interface RenderOptions {
  /** Worker threads; default one per core (at most 4). 0 or 1 runs inline. */
  threads?: number;
  /** Minimum number of jobs for the pool; default {@link POOL_MIN_JOBS}. */
  minJobs?: number;
}

const WORKER = new URL('./convert-worker.js', import.meta.url);

type Rendered = { text?: string; synced?: string; error?: string };

/** Worker threads that render mirror files, started for one large set of jobs. */
class RenderPool {
  private constructor(
    private readonly pool: Piscina<MirrorJob[], Rendered[]>,
    readonly threads: number,
  ) {}

  /**
   * Starts the threads.
   * @returns undefined when there is no pool to have: one thread only, or no compiled worker (tests from sources).
   */
  static async start(options: RenderOptions = {}): Promise<RenderPool | undefined> {
    const threads = poolSize(options.threads, MAX_THREADS);
    if (threads <= 1 || !COMPILED_BUILD) return undefined;
    // Two tasks per worker: one runs while the next waits, so a worker never idles while
    // the main thread writes the previous chunk.
    const pool = await startPool<MirrorJob[], Rendered[]>(WORKER, { threads, concurrentTasksPerWorker: 2, heapLimitMb: WORKER_HEAP_MB });
    return new RenderPool(pool, threads);
  }

  /**
   * Renders one chunk of jobs on a thread. Never rejects: a failed thread gives an
   * `error` for each job of the chunk.
   */
  private render(chunk: MirrorJob[]): Promise<Rendered[]> {
    return this.pool.run(chunk).catch((err: unknown) =>
      chunk.map(() => ({ error: `render worker failed: ${err instanceof Error ? err.message : String(err)}` })),
    );
  }

  /** Renders in chunks on the threads; the main thread writes each chunk as it comes. */
  async run(jobs: MirrorJob[], onOutcome: OnOutcome, beforeWrite?: BeforeWriteAt): Promise<void> {
    const chunks: Array<{ start: number; rendered: Promise<Rendered[]> }> = [];
    for (let start = 0; start < jobs.length; start += CHUNK) chunks.push({ start, rendered: this.render(jobs.slice(start, start + CHUNK)) });
    const { commitJob } = await import('./mirror-writer.js');
    await Promise.all(
      chunks.map(({ start, rendered }) =>
        rendered.then((texts) =>
          texts.forEach((r, i) => {
            const job = jobs[start + i]!;
            const at = start + i;
            onOutcome(at, r.text !== undefined && r.synced !== undefined ? commitJob(job, { text: r.text, synced: r.synced }, beforeWrite && ((hash, synced) => beforeWrite(at, hash, synced))) : { error: r.error ?? 'not rendered' });
          }),
        ),
      ),
    );
  }

  /** Stops the threads. */
  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

/**
 * Runs every job and hands each outcome to `onOutcome(index, outcome)` as soon as its
 * chunk is done (in no particular order). Never rejects for a single entry: a failure is
 * an outcome with `error`. Starts a pool when there are enough jobs, and stops it after.
 *
 * @returns how the jobs ran: `inline` or the number of worker threads.
 */
async function runMirrorJobs(jobs: MirrorJob[], onOutcome: OnOutcome, options: RenderOptions = {}, beforeWrite?: BeforeWriteAt): Promise<'inline' | number> {
  if (jobs.length === 0) return 'inline';
  if (jobs.length >= (options.minJobs ?? POOL_MIN_JOBS)) {
    const pool = await RenderPool.start(options);
    if (pool) {
      try {
        await pool.run(jobs, onOutcome, beforeWrite);
        return pool.threads;
      } finally {
        await pool.destroy();
      }
    }
  }
  const { renderJob, commitJob } = await import('./mirror-writer.js');
  jobs.forEach((job, i) => {
    const rendered = renderJob(job);
    onOutcome(i, rendered.error !== undefined ? rendered : commitJob(job, rendered, beforeWrite && ((hash, synced) => beforeWrite(i, hash, synced))));
  });
  return 'inline';
}

/**
 * The jobs of a pull, collected while it is planned and run by {@link RenderQueue.commit}
 * once the whole plan is known: nothing is rendered or written before. (Rendering chunks
 * on threads started early, while the plan was still being made, was measured and
 * removed: alternated first pulls of 10,000 entries showed no gain beyond noise.)
 */
export class RenderQueue {
  private readonly jobs: MirrorJob[] = [];

  constructor(private readonly options: RenderOptions = {}) {}

  /** Adds a job; its index (in `commit`'s outcomes) is the number of jobs added before it. */
  add(job: MirrorJob): void {
    this.jobs.push(job);
  }

  /**
   * Renders and writes every job (on threads, each chunk as soon as it is rendered, when
   * there are many) and hands each outcome to `onOutcome(index, outcome)`, in no
   * particular order. Never rejects for a single entry: a failure is an outcome with `error`.
   * @returns how the jobs ran: `inline` or the number of worker threads.
   */
  commit(onOutcome: OnOutcome, beforeWrite?: BeforeWriteAt): Promise<'inline' | number> {
    return runMirrorJobs(this.jobs, onOutcome, this.options, beforeWrite);
  }
}
