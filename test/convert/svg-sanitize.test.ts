// The SVG sanitiser of pulled images: an SVG never carries script onto the site.
import { describe, expect, it } from 'vitest';
import { sanitizeSvg } from '../../src/convert/svg-sanitize.js';
import { SVG_WITH_SCRIPT } from '../helpers/sync/media.js';

const clean = (svg: string): string => sanitizeSvg(svg)!.svg;

describe('sanitizeSvg', () => {
  it('keeps the drawing: shapes, text, gradients, internal references', () => {
    const out = clean(SVG_WITH_SCRIPT);
    expect(out).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 40 20">/);
    expect(out).toContain('<rect width="40" height="20" fill="url(#g)"></rect>');
    expect(out).toContain('<text x="1" y="15">Hi &amp; bye</text>');
    expect(out).toContain('<use href="#g"></use>');
  });

  it('drops scripts, handlers, foreignObject, animation, external references, imports and the DOCTYPE', () => {
    const out = clean(SVG_WITH_SCRIPT);
    for (const bad of ['script', 'onload', 'onclick', 'foreignObject', 'iframe', '<set', 'javascript', 'evil.example', '@import', 'ENTITY', 'xml-stylesheet']) expect(out).not.toContain(bad);
  });

  it('drops the same in any case, in CDATA, and behind entities', () => {
    const out = clean('<svg xmlns="http://www.w3.org/2000/svg"><SCRIPT><![CDATA[alert(1)]]></SCRIPT><a href="&#106;avascript:alert(1)"><rect OnClick="x()"/></a><image href="data:image/svg+xml;base64,PHN2Zz4="/><image href="data:image/png;base64,iVBORw0KGgo="/><rect style="fill:url(https://evil.example/x)"/></svg>');
    expect(out).not.toMatch(/alert|javascript|onclick|svg\+xml|evil/i);
    expect(out).toContain('<image href="data:image/png;base64,iVBORw0KGgo="></image>');
  });

  it('keeps no CSS: <style> dropped, style= turned into plain presentation attributes, CSS escapes and functions refused', () => {
    const tracker = 'fill:u\\72l(http://tracker/x.png)';
    const r = sanitizeSvg(
      [
        '<svg xmlns="http://www.w3.org/2000/svg">',
        `<style>rect { ${tracker} }</style>`,
        `<rect style="${tracker}"/>`,
        `<rect fill="u\\72l(http://tracker/x.png)"/>`,
        '<rect style="background:image-set(&quot;http://tracker/y.png&quot; 1x); fill: \\75 rl(http://tracker/z.png); stroke:url(http://tracker/w.png)"/>',
        '<rect fill="blue" style="fill:#f00; stroke: rgb(0, 0, 255); stroke-width:2px; mask:url(#m); font-family: Open Sans, sans-serif; cursor:pointer"/>',
        '</svg>',
      ].join(''),
    )!;
    expect(r.svg).not.toMatch(/tracker|style|image-set|\\/);
    expect(r.svg).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg"><rect></rect><rect></rect><rect></rect>' +
        '<rect fill="#f00" stroke="rgb(0, 0, 255)" stroke-width="2px" mask="url(#m)" font-family="Open Sans, sans-serif"></rect></svg>',
    );
    expect(r.removed).toEqual(['<style>', 'style: fill', 'fill', 'style: background', 'style: stroke', 'style: cursor']); // each once
  });

  it('refuses a document whose root is not svg', () => {
    expect(sanitizeSvg('<html><body><svg></svg></body></html>')).toBeUndefined();
    expect(sanitizeSvg('<script>alert(1)</script><svg></svg>')).toBeUndefined();
    expect(sanitizeSvg('not xml')).toBeUndefined();
  });
});
