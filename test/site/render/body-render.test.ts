// Entry bodies rendered in batches give the same HTML as renderBody, in order, each batch
// reported once as it is done.
import { describe, expect, it } from 'vitest';
import { renderBodies } from '../../../src/site/render/body-render.js';
import { renderBody } from '../../../src/site/render/sanitize.js';

describe('renderBodies', () => {
  it('renders a large mirror in batches, in order, exactly as renderBody does', async () => {
    const bodies = Array.from({ length: 1550 }, (_, i) => `Entry **${i}** <script>alert(${i})</script>\n\n- [link](https://example.com/${i})\n`);
    const batches: Array<[number, string[]]> = [];
    const html = await renderBodies(bodies, { onBatch: (start, batch) => batches.push([start, batch]) });
    expect(html).toHaveLength(bodies.length);
    expect(html).toEqual(bodies.map((b) => renderBody(b)));
    // Every body is reported once, with its HTML, as its batch is done.
    const reported = new Array<string>(bodies.length);
    for (const [start, batch] of batches) batch.forEach((h, k) => (reported[start + k] = reported[start + k] === undefined ? h : 'twice'));
    expect(reported).toEqual(html);
    expect(html[7]).toBe('<p>Entry <strong>7</strong> </p>\n<ul>\n<li><a href="https://example.com/7">link</a></li>\n</ul>\n');
  });
});
