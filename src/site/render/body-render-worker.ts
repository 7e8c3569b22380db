/**
 * A worker thread of the body render pool (see body-render-pool.ts): renders a batch of entry bodies.
 *
 * @module
 */
import { renderBody } from './sanitize.js';

/** Markdown bodies to sanitised HTML, in order. */
export default function renderBatch(bodies: string[]): string[] {
  return bodies.map((body) => renderBody(body));
}
