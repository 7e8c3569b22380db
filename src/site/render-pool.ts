/**
 * Rendering entry bodies (Markdown to sanitised HTML with `renderBody`) is most of the
 * site data's cost: about a millisecond an entry. A large mirror is rendered on worker
 * threads (piscina), one per core, in batches; a small one in this thread, where starting
 * workers would cost more than it saves.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { renderBody } from './sanitize.js';
import { WORKER_EXEC_ARGV } from '../threads.js';

/** Below this many bodies, render in this thread (starting workers would cost about as much as they save). */
export const WORKER_THRESHOLD = 1500;

/** Bodies per task sent to a worker. */
const BATCH = 100;

/**
 * Renders Markdown bodies to sanitised HTML, in order.
 *
 * @param bodies Markdown bodies of entry files.
 * @param options.threads worker threads; default one per core (at most 8); 0 renders here.
 */
export async function renderBodies(bodies: string[], options: { threads?: number } = {}): Promise<string[]> {
  const threads = options.threads ?? Math.min(availableParallelism(), 8);
  // From TypeScript sources (tests) there is no compiled worker: render here.
  const compiled = import.meta.url.endsWith('.js');
  if (bodies.length < WORKER_THRESHOLD || threads < 1 || !compiled) return bodies.map((b) => renderBody(b));
  const worker = new URL('./render-worker.js', import.meta.url);
  const pool = new Piscina<string[], string[]>({ filename: worker.href, minThreads: threads, maxThreads: threads, execArgv: WORKER_EXEC_ARGV });
  try {
    const batches: Array<Promise<string[]>> = [];
    for (let i = 0; i < bodies.length; i += BATCH) batches.push(pool.run(bodies.slice(i, i + BATCH)));
    return (await Promise.all(batches)).flat();
  } finally {
    await pool.destroy();
  }
}
