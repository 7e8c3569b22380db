// Entry bodies rendered in batches give the same HTML as renderBody, each body reported once
// as its batch is done; with a renderer beside this thread (the data thread), it renders from
// the last body back while this thread renders from the first on, and a renderer that stops
// leaves its batches to this thread.
import { describe, expect, it } from 'vitest';
import { renderBodies, type BodyRenderer } from '../../../src/site/render/body-render.js';
import { renderBody } from '../../../src/site/render/sanitize.js';

const bodies = Array.from({ length: 1550 }, (_, i) => `Entry **${i}** <script>alert(${i})</script>\n\n- [link](https://example.com/${i})\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n`);
const expected = bodies.map((b) => renderBody(b));

/** Runs renderBodies and checks that every body was reported exactly once, with the HTML returned for it. */
async function renderReported(options: Parameters<typeof renderBodies>[1] = {}) {
  const batches: Array<[number, string[]]> = [];
  const html = await renderBodies(bodies, { ...options, onBatch: (start, batch) => batches.push([start, batch]) });
  const reported = new Array<string>(bodies.length);
  for (const [start, batch] of batches) batch.forEach((h, k) => (reported[start + k] = reported[start + k] === undefined ? h : 'twice'));
  expect(reported).toEqual(html);
  return { html, batches };
}

/** A renderer beside this thread, as the data thread is: it answers each batch on a later turn. */
function besideRenderer(fail = false): BodyRenderer & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    async render(batch) {
      batches.push(batch);
      await new Promise((resolve) => setImmediate(resolve));
      if (fail) throw new Error('the data thread stopped (exit code 1)');
      return batch.map((b) => `[beside]${renderBody(b)}`);
    },
  };
}

describe('renderBodies', () => {
  it('renders a large mirror in batches, in order, exactly as renderBody does', async () => {
    const { html } = await renderReported();
    expect(html).toHaveLength(bodies.length);
    expect(html).toEqual(expected);
    expect(html[7]).toContain('<p>Entry <strong>7</strong> </p>\n<ul>\n<li><a href="https://example.com/7">link</a></li>\n</ul>\n');
  });

  it('shares the bodies with a renderer beside it, which takes them from the last one back', async () => {
    const beside = besideRenderer();
    const { html } = await renderReported({ thread: beside });
    // The renderer beside got batches of 50 from the end back, each ending where the one after it starts.
    expect(beside.batches.length).toBeGreaterThanOrEqual(2);
    expect(beside.batches[0]).toEqual(bodies.slice(-50));
    expect(beside.batches[1]).toEqual(bodies.slice(-100, -50));
    // Each body rendered once: by this thread (as renderBody does) or by the one beside.
    const besideCount = beside.batches.flat().length;
    expect(html.filter((h) => h.startsWith('[beside]'))).toHaveLength(besideCount);
    expect(html.map((h) => h.replace(/^\[beside\]/, ''))).toEqual(expected);
    expect(html.slice(bodies.length - besideCount).every((h) => h.startsWith('[beside]'))).toBe(true);
  });

  it('renders here what a renderer that stopped was given', async () => {
    const beside = besideRenderer(true);
    const { html } = await renderReported({ thread: beside });
    expect(beside.batches.length).toBeGreaterThanOrEqual(1);
    expect(html).toEqual(expected);
  });

  it("throws a body's own error, whichever side rendered it", async () => {
    const broken: BodyRenderer = { render: () => Promise.reject(new Error('stopped')) };
    const bad = [...bodies.slice(0, 300), null as unknown as string];
    await expect(renderBodies(bad, { thread: broken })).rejects.toThrow();
    await expect(renderBodies(bad)).rejects.toThrow();
  });
});
