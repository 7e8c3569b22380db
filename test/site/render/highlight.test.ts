// Build-time highlighting of entry bodies (src/site/render/highlight.ts) through the real renderer
// (marked, highlight.js, sanitize-html): which blocks are highlighted, what the sanitiser
// lets through of the highlighter's markup (its classes and nothing more), and hostile
// code staying text.
import { describe, expect, it } from 'vitest';
import { focusableCodeBlocks, highlightCodeBlocks, languageOf } from '../../../src/site/render/highlight.js';
import { renderBody, sanitizeBody } from '../../../src/site/render/sanitize.js';

const fence = (lang: string, code: string) => `\`\`\`${lang}\n${code}\n\`\`\`\n`;

describe('highlighting code blocks', () => {
  it('highlights a fenced block of a known language with highlight.js classes', () => {
    const html = renderBody(fence('js', 'const a = "x"; // note'));
    expect(html).toBe('<pre tabindex="0"><code class="hljs language-js"><span class="hljs-keyword">const</span> a = <span class="hljs-string">"x"</span>; <span class="hljs-comment">// note</span>\n</code></pre>\n');
  });

  it('knows the fence names real changelogs use (curl), highlight.js\'s aliases, any case', () => {
    expect(languageOf('curl')).toBe('bash');
    expect(languageOf('console')).toBe('console');
    expect(languageOf('sh')).toBe('sh');
    expect(languageOf('cURL')).toBe('bash');
    expect(languageOf('JSON')).toBe('json');
    expect(languageOf('javascript')).toBe('javascript');
    expect(renderBody(fence('curl', 'curl -H "A: b" https://x.test/'))).toContain('<span class="hljs-string">"A: b"</span>');
  });

  it('leaves a block plain when its language is unknown, odd or absent, without an error', () => {
    for (const lang of ['brainfudge', 'apex', 'c++;', '']) {
      const html = renderBody(fence(lang, 'a < b && c'));
      expect(html).not.toContain('<span');
      expect(html).toContain('a &lt; b &amp;&amp; c');
    }
    expect(languageOf('no-such-language')).toBeUndefined();
  });

  it('keeps code text exact: entities decoded once for the highlighter and escaped again', () => {
    const code = 'if (a < b && s === "<script>alert(1)</script>") {}';
    const html = renderBody(fence('js', code));
    expect(html).not.toContain('<script');
    const text = html.replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    expect(text.trim()).toBe(code);
  });

  it('leaves raw-HTML blocks with markup or unusual entities inside as they are', () => {
    const raw = '<pre><code class="language-js"><b>bold</b> &nbsp;</code></pre>';
    expect(highlightCodeBlocks(raw)).toBe(raw);
    const entity = '<pre><code class="language-js">a &copy; b</code></pre>';
    expect(highlightCodeBlocks(entity)).toBe(entity);
  });

  it('makes every sanitised code block focusable, so a keyboard scrolls it', () => {
    expect(focusableCodeBlocks('<pre class="language-x"><code>x</code></pre><pre>y</pre><p>&lt;pre&gt;</p>')).toBe('<pre tabindex="0" class="language-x"><code>x</code></pre><pre tabindex="0">y</pre><p>&lt;pre&gt;</p>');
    expect(sanitizeBody('<pre tabindex="5">x</pre>')).toBe('<pre>x</pre>');
  });
});

describe('the sanitiser and the highlighter\'s classes', () => {
  it('lets through hljs classes on span and code, and no other class on span or div', () => {
    expect(sanitizeBody('<span class="hljs-title class_ inherited__">A</span>')).toBe('<span class="hljs-title class_ inherited__">A</span>');
    expect(sanitizeBody('<code class="hljs language-js">x</code>')).toBe('<code class="hljs language-js">x</code>');
    expect(sanitizeBody('<span class="visually-hidden hljs-keyword">x</span>')).toBe('<span class="hljs-keyword">x</span>');
    expect(sanitizeBody('<div class="heading-anchored">x</div>')).toBe('<div>x</div>');
    expect(sanitizeBody('<span class="skip-link">x</span>')).toBe('<span>x</span>');
    expect(sanitizeBody('<a class="heading-anchor" href="#x">x</a>')).toBe('<a href="#x">x</a>');
  });
});
