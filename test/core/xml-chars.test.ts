// The characters no feed may hold are dropped exactly as the full Unicode test finds them,
// whether or not the quick pre-check lets a text through unscanned.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dropXmlInvalid, XML_INVALID } from '../../src/core/xml-chars.js';

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
