// Entry bodies rendered on worker threads give the same HTML as in this thread. Workers run
// compiled code, so this test loads dist/ (npm test builds it first); types come from src/.
import { describe, expect, it } from 'vitest';
import { WORKER_THRESHOLD } from '../../../src/site/render/body-render-pool.js';

const dist = (path: string) => import(new URL(`../../../dist/site/${path}`, import.meta.url).href);
const { renderBody } = (await dist('render/sanitize.js')) as typeof import('../../../src/site/render/sanitize.js');
const { renderBodies } = (await dist('render/body-render-pool.js')) as typeof import('../../../src/site/render/body-render-pool.js');

describe('renderBodies', () => {
  it('renders a large mirror on worker threads, in order, exactly as renderBody does', async () => {
    const bodies = Array.from({ length: WORKER_THRESHOLD + 50 }, (_, i) => `Entry **${i}** <script>alert(${i})</script>\n\n- [link](https://example.com/${i})\n`);
    const batches: Array<[number, string[]]> = [];
    const html = await renderBodies(bodies, { threads: 2, onBatch: (start, batch) => batches.push([start, batch]) });
    expect(html).toHaveLength(bodies.length);
    expect(html).toEqual(bodies.map((b) => renderBody(b)));
    // Every body is reported once, with its HTML, as its batch is done.
    const reported = new Array<string>(bodies.length);
    for (const [start, batch] of batches) batch.forEach((h, k) => (reported[start + k] = reported[start + k] === undefined ? h : 'twice'));
    expect(reported).toEqual(html);
    expect(html[7]).toBe('<p>Entry <strong>7</strong> </p>\n<ul>\n<li><a href="https://example.com/7">link</a></li>\n</ul>\n');
  });
});
