// Data in the job summary stays text: nothing from data escapes its context.
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { markdownCode, markdownText } from '../../../src/cli/output/github-actions.js';

const md = new MarkdownIt({ html: true, linkify: false });
/** What GitHub would render, as HTML, and its text once the tags are gone. */
const render = (markdown: string) => {
  const html = md.renderInline(markdown);
  const text = html.replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return { html, text };
};

const HOSTILE = [
  'Acme](https://evil.example/)![x](https://evil.example/x.png)',
  '<img src=x onerror=alert(1)> <script>alert(1)</script>',
  '| a | b |\n### heading\n- item',
  '**bold** _em_ ~~s~~ `code` \\ &amp; &lt;b&gt; [ref]: https://evil.example/',
];

describe('markdownText', () => {
  it.each(HOSTILE)('keeps %j as text: no link, image, HTML, heading or cell', (data) => {
    const { html, text } = render(markdownText(data));
    expect(html).not.toMatch(/<(a|img|script|strong|em|s|code|h3|li)\b/);
    expect(text).toBe(data.replace(/[^\P{Cc}\u0080-\u009f]+/gu, ' '));
  });

  it('leaves a plain name as it is', () => {
    expect(markdownText('Lumen')).toBe('Lumen');
  });
});

describe('markdownCode', () => {
  it.each(['entries/2026-11-02-good.md', 'a`b``c.md', '`start.md', 'line\nbreak <b>.md'])('shows %j verbatim in one code span', (data) => {
    const { html } = render(markdownCode(data));
    expect(html.match(/<code>/g)).toHaveLength(1);
    const inner = /<code>([\s\S]*)<\/code>/.exec(html)![1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    expect(inner).toBe(data.replace(/\n/g, ' '));
  });
});
