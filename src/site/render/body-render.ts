/**
 * Rendering entry bodies (`renderBody`), most of the site data's cost (about a millisecond an
 * entry), in the build's own thread: a thread pool was slower, both cores being busy with Pagefind
 * and the build. In batches, so the search index's requests go on between them.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bodies rendered between two turns of the event loop. */
const BATCH = 100;

/**
 * Renders Markdown bodies to sanitised HTML, in order.
 * @param bodies Markdown bodies of entry files.
 * @param options.onBatch called with each batch in order (its first body's index, its HTML), so the search index starts while the others render.
 */
export async function renderBodies(bodies: string[], options: { onBatch?: (start: number, html: string[]) => void } = {}): Promise<string[]> {
  if (bodies.length === 0) return [];
  // A build whose bodies all come from the cache loads neither marked nor sanitize-html.
  const { renderBody } = await import('./sanitize.js');
  const out: string[] = [];
  for (let i = 0; i < bodies.length; i += BATCH) {
    const html = bodies.slice(i, i + BATCH).map((b) => renderBody(b));
    out.push(...html);
    options.onBatch?.(i, html);
    // Lets I/O waiting on the batch (the search index's requests) proceed.
    if (i + BATCH < bodies.length) await nextTurn();
  }
  return out;
}
