// The scheme of a URL as a browser reads it, and the url() of a style attribute: what
// `check` refuses and push rewrites (src/core/url-attributes.ts).
import { describe, expect, it } from 'vitest';
import { cssUrls, refusedScheme, rewriteCssUrls } from '../../src/core/url-attributes.js';

describe('refusedScheme', () => {
  it.each([
    ['javascript:alert(1)', 'javascript'],
    [' JaVaScRiPt:alert(1)', 'javascript'],
    ['\u0000\u001f javascript:x', 'javascript'],
    ['java\tscr\nipt:x', 'javascript'],
    ['VBScript:msgbox', 'vbscript'],
    ['data:text/html,<script>', 'data'],
    ['data:image/svg+xml,<svg onload=x>', 'data'],
    [' DATA:text/html,x', 'data'],
  ])('%j is refused as %s', (url, scheme) => {
    expect(refusedScheme(url)).toBe(scheme);
  });

  it.each(['https://example.com/', 'mailto:a@example.com', '/images/x.png', '../x.md', '#top', 'javascript', 'javascript%3Aalert(1)', './javascript:x', 'data:image/png;base64,iVBO', ' DATA:image/JPEG,x'])('%j may be sent', (url) => {
    expect(refusedScheme(url)).toBeUndefined();
  });
});

describe('the url() of a style attribute', () => {
  it('finds quoted and unquoted URLs, and rewrites each as a quoted, escaped url()', () => {
    const style = `background: url(../a.png), URL( "b c.png" ); mask: url('d.svg#m'); x: url()`;
    expect(cssUrls(style)).toEqual(['../a.png', 'b c.png', 'd.svg#m']);
    expect(rewriteCssUrls(style, (u) => (u === 'b c.png' ? 'https://x.test/b%20c.png?q="\\' : `https://x.test/${u}`))).toBe(
      `background: url("https://x.test/../a.png"), URL( "https://x.test/b%20c.png?q=\\22 \\5c " ); mask: url("https://x.test/d.svg#m"); x: url()`,
    );
  });
});
