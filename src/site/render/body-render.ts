/**
 * Rendering entry bodies (Markdown to sanitised HTML with `renderBody`) is most of the
 * site data's cost: about a millisecond an entry in a fresh process. Rendered in the
 * build's own thread, in batches, so that the search index's requests go on between them:
 * on render threads (a piscina pool) it was slower, both cores being busy with Pagefind
 * and the rest of the build (docs/benchmarks.md, "The speed machinery").
 *
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bodies rendered between two turns of the event loop. */
const BATCH = 100;

/** Options of {@link renderBodies}. */
export interface BodyRenderOptions {
  /**
   * Called as each batch of bodies is rendered, in order: the index of its first body and
   * the HTML of the batch. Lets a caller start on the first entries (the search index)
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
  const onBatch = options.onBatch ?? (() => undefined);
  if (bodies.length === 0) return [];
  // Loaded when there is something to render: a build whose bodies all come from the
  // build cache loads neither marked nor sanitize-html.
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
