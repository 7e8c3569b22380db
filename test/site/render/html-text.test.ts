// The text of HTML as a parser reads it (src/site/render/html-text.ts): what the search
// index, the feeds and the excerpts of the index pages show.
import { describe, expect, it } from 'vitest';
import { excerptOf, htmlText } from '../../../src/site/render/html-text.js';

describe('htmlText', () => {
  it('drops tags and decodes character references', () => {
    expect(htmlText('<p>Fish &amp; <em>chips</em> &lt;3 &#x1F600;</p>')).toBe('Fish & chips <3 \u{1F600}');
  });
});

describe('excerptOf', () => {
  it('is the text of the first paragraph, entities decoded, at most 200 characters', () => {
    expect(excerptOf('<h2>Title</h2>\n<p>Fast <strong>exports</strong> &amp; <a href="/x">more</a>.</p><p>Second.</p>')).toBe('Fast exports & more.');
    const long = excerptOf(`<p>${'word '.repeat(100)}</p>`);
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
