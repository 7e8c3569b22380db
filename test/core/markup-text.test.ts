// escapeHtml against the Nunjucks that renders the site's templates: Eleventy's own
// (@11ty/nunjucks, a dependency of @11ty/eleventy, not of ours), loaded from where Eleventy
// loads it. It ships no types.
//
// The characters no feed may hold are dropped exactly as the full Unicode test finds them,
// whether or not the quick pre-check lets a text through unscanned.
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { dropXmlInvalid, escapeHtml, XML_INVALID } from '../../src/core/markup-text.js';

interface Nunjucks {
  Environment: new (loader: null, options: { autoescape: boolean }) => { renderString(template: string, context: object): string };
}
const require = createRequire(import.meta.url);
const nunjucks = createRequire(require.resolve('@11ty/eleventy'))('nunjucks') as Nunjucks;

describe('escapeHtml', () => {
  it("escapes exactly as the templates' autoescape does", () => {
    const env = new nunjucks.Environment(null, { autoescape: true });
    for (const s of ['plain', `Tom & "Jerry" <b>'s</b> \\n`, 'a&amp;b', '', '€ ✓ עברית', '<script>alert(1)</script>']) {
      expect(escapeHtml(s), s).toBe(env.renderString('{{ s }}', { s }));
    }
  });
});

/** What the exact expression alone removes. */
const exact = (text: string) => text.replace(XML_INVALID, '');

describe('dropXmlInvalid', () => {
  it('drops control characters, U+FFFE, U+FFFF and lone surrogates; keeps tab, line endings and surrogate pairs', () => {
    expect(dropXmlInvalid('a\u0000b\u0008c\u000bd\u001fe\u007ff\u0085g\u009fh')).toBe('abcdefgh');
    expect(dropXmlInvalid('tab\there\nline\r\nend')).toBe('tab\there\nline\r\nend');
    expect(dropXmlInvalid('x\ufffey\uffffz')).toBe('xyz');
    expect(dropXmlInvalid('rocket \ud83d\ude80 lone \ud83d high \ude80 low')).toBe('rocket \ud83d\ude80 lone  high  low');
    expect(dropXmlInvalid('é ü — “quoted” … \u00a0')).toBe('é ü — “quoted” … \u00a0');
  });

  it('returns the very same string when there is nothing to drop', () => {
    const text = 'plain <entry> &amp; text, with an emoji \ud83d\ude80 and a tab\t';
    expect(dropXmlInvalid(text)).toBe(text);
  });

  it('agrees with the exact expression on any text', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xa0 }),
      fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffe, 0xffff, 0xfffd, 0x2028),
      fc.integer({ min: 0, max: 0xffff }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const text = String.fromCharCode(...units);
        expect(dropXmlInvalid(text)).toBe(exact(text));
      }),
      { numRuns: 2000 },
    );
  });
});
