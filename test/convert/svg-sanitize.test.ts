// The SVG sanitiser of pulled images (issue 24, item 5: "An SVG never carries script onto the site").
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

  it('refuses a document whose root is not svg', () => {
    expect(sanitizeSvg('<html><body><svg></svg></body></html>')).toBeUndefined();
    expect(sanitizeSvg('<script>alert(1)</script><svg></svg>')).toBeUndefined();
    expect(sanitizeSvg('not xml')).toBeUndefined();
  });
});
