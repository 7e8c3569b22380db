/**
 * Rendering entry bodies (Markdown to sanitised HTML with `renderBody`) is most of the
 * site data's cost: about a millisecond an entry in a fresh process. A cold build of a
 * large mirror shares it between the build's own thread and the data thread started with
 * the build (site/data/data-thread.ts), which has loaded the renderer by then: this thread
 * renders from the newest entry on, the data thread from the oldest back, until they meet. Rendered in batches, so that the search index's requests go on
 * between them. (A pool of threads doing all of it, started when the rendering began, was
 * slower: docs/benchmarks.md, "The speed machinery, weighed".)
 *
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bodies rendered in this thread between two turns of the event loop. */
const BATCH = 100;

/** Bodies sent to the other renderer at a time; two batches are kept in flight so that it never waits for the next. */
const THREAD_BATCH = 50;

/**
 * Something that renders bodies beside this thread (the data thread, site/data/data-thread.ts).
 */
export interface BodyRenderer {
  /**
   * Renders a batch of bodies.
   * @returns their HTML, in order.
   * @throws {Error} with the renderer's message when a body fails, or when it has stopped.
   */
  render(bodies: string[]): Promise<string[]>;
}

/** Options of {@link renderBodies}. */
export interface BodyRenderOptions {
  /**
   * Called as each batch of bodies is rendered, in any order: the index of its first body
   * and the HTML of the batch, each body once. Lets a caller start on the first entries
   * (the search index) while the others render.
   */
  onBatch?: (start: number, html: string[]) => void;
  /**
   * A renderer beside this thread (the data thread) that renders from the last body back
   * while this thread renders from the first on. A batch it fails to render (it stopped) is
   * rendered here. Default none: every body is rendered here.
   */
  thread?: BodyRenderer;
}

/**
 * Renders Markdown bodies to sanitised HTML.
 *
 * @param bodies Markdown bodies of entry files.
 * @returns their HTML, in the order of `bodies`.
 * @throws {Error} the renderer's error for a body it cannot render.
 */
export async function renderBodies(bodies: string[], options: BodyRenderOptions = {}): Promise<string[]> {
  const onBatch = options.onBatch ?? (() => undefined);
  if (bodies.length === 0) return [];
  // Loaded when there is something to render: a build whose bodies all come from the
  // build cache loads neither marked nor sanitize-html.
  const { renderBody } = await import('./sanitize.js');
  const out = new Array<string>(bodies.length);
  const done = (start: number, html: string[]) => {
    html.forEach((h, k) => (out[start + k] = h));
    onBatch(start, html);
  };
  // [front, back) is what nobody has taken yet: this thread takes from the front, the
  // render thread from the back.
  let front = 0;
  let back = bodies.length;
  const sent: Array<Promise<void>> = [];
  const send = (thread: BodyRenderer) => {
    if (back <= front) return;
    const start = Math.max(front, back - THREAD_BATCH);
    const batch = bodies.slice(start, back);
    back = start;
    const batchDone = thread.render(batch).then(
        (html) => {
          done(start, html);
          send(thread);
        },
        // It stopped: its batch is rendered here (a body's own error is thrown here again).
        () => done(start, batch.map((b) => renderBody(b))),
      );
    // Awaited below; should this thread's own rendering throw first, it is nobody's.
    batchDone.catch(() => undefined);
    sent.push(batchDone);
  };
  if (options.thread && bodies.length > BATCH) {
    send(options.thread);
    send(options.thread);
  }
  while (front < back) {
    const start = front;
    front = Math.min(back, front + BATCH);
    done(start, bodies.slice(start, front).map((b) => renderBody(b)));
    // Lets I/O waiting on the batch (the search index's requests, the thread's answers) proceed.
    await nextTurn();
  }
  // The thread's batches still out; each sends the next until none is left.
  for (let i = 0; i < sent.length; i++) await sent[i];
  return out;
}
