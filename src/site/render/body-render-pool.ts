/**
 * Rendering entry bodies (Markdown to sanitised HTML with `renderBody`) is most of the
 * site data's cost: about a millisecond an entry. A large mirror is rendered on worker
 * threads (a piscina pool, see `threads.ts`), one per core, in batches; a small one in this
 * thread, where starting workers would cost more than it saves.
 *
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { COMPILED_BUILD, poolSize, startPool } from '../../core/threads.js';

/** Below this many bodies, render in this thread (starting workers would cost about as much as they save). */
export const WORKER_THRESHOLD = 1500;

/** Bodies per task sent to a worker. */
const BATCH = 100;
/** Threads of the pool by default (one per core, at most this many). */
const MAX_THREADS = 8;

/** Options of {@link renderBodies}. */
export interface BodyRenderOptions {
  /** Worker threads; default one per core (at most 8); 0 renders here. */
  threads?: number;
  /**
   * Called as each batch of bodies is rendered (in any order): the index of its first body
   * and the HTML of the batch. Lets a caller start on the first entries (the search index)
   * while the others render.
   */
  onBatch?: (start: number, html: string[]) => void;
}

/**
 * Renders Markdown bodies to sanitised HTML, in order.
 *
 * @param bodies Markdown bodies of entry files.
 */
export async function renderBodies(bodies: string[], options: BodyRenderOptions = {}): Promise<string[]> {
  const threads = poolSize(options.threads, MAX_THREADS);
  const onBatch = options.onBatch ?? (() => undefined);
  if (bodies.length === 0) return [];
  // From TypeScript sources (tests) there is no compiled worker: render here.
  if (bodies.length < WORKER_THRESHOLD || threads < 1 || !COMPILED_BUILD) {
    // Loaded when there is something to render: a build whose bodies all come from the
    // build cache loads neither marked nor sanitize-html (nor piscina below).
    const { renderBody } = await import('./sanitize.js');
    const out: string[] = [];
    for (let i = 0; i < bodies.length; i += BATCH) {
      const html = bodies.slice(i, i + BATCH).map((b) => renderBody(b));
      out.push(...html);
      onBatch(i, html);
      // Lets I/O waiting on the batch (the search index's requests) proceed.
      if (i + BATCH < bodies.length) await nextTurn();
    }
    return out;
  }
  const pool = await startPool<string[], string[]>(new URL('./body-render-worker.js', import.meta.url), { threads });
  try {
    const batches: Array<Promise<string[]>> = [];
    for (let i = 0; i < bodies.length; i += BATCH) {
      batches.push(
        pool.run(bodies.slice(i, i + BATCH)).then((html) => {
          onBatch(i, html);
          return html;
        }),
      );
    }
    return (await Promise.all(batches)).flat();
  } finally {
    await pool.destroy();
  }
}
