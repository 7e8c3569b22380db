// Round-trip fidelity of the conversion on the real changelog (faithful content):
// Markdown -> HTML (marked, as push sends it) -> Markdown (turndown, as pull writes it)
// -> HTML (marked, as the site renders it). The two HTML documents are parsed with parse5
// and compared as DOMs after whitespace normalisation. At least 99% of the 764 entries
// must match; the rate and every failure are printed.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../src/convert/html-to-markdown.js';
import { markdownToHtml } from '../../src/convert/markdown-to-html.js';
import { canonicalDom } from '../helpers/browser/html.js';
import { CORPUS_DIR, loadCorpus } from './corpus.js';

/** The first line where two canonical forms differ, with context. */
function firstDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  const i = la.findIndex((l, k) => l !== lb[k]);
  const at = i < 0 ? la.length : i;
  return `line ${at + 1}:\n    before: ${la[at] ?? '(end)'}\n    after:  ${lb[at] ?? '(end)'}`;
}

const corpus = existsSync(CORPUS_DIR) ? loadCorpus() : [];

describe.runIf(corpus.length > 0)('round-trip fidelity on the corpus', () => {
  it('the normalisation is not blind: different documents differ', () => {
    expect(canonicalDom('<p>a <b>b</b></p>')).toBe(canonicalDom('<p>a\n  <b>b</b>\n</p>'));
    expect(canonicalDom('<p>a <b>b</b></p>')).not.toBe(canonicalDom('<p>a <i>b</i></p>'));
    expect(canonicalDom('<pre><code>a  b\n</code></pre>')).not.toBe(canonicalDom('<pre><code>a b\n</code></pre>'));
    expect(canonicalDom('<a href="x">l</a>')).not.toBe(canonicalDom('<a href="y">l</a>'));
  });

  it('Markdown -> HTML -> Markdown -> HTML gives the same DOM for at least 99% of the entries', () => {
    const failures: Array<{ source: string; diff: string }> = [];
    for (const entry of corpus) {
      const html1 = markdownToHtml(entry.body);
      const html2 = markdownToHtml(htmlToMarkdown(html1));
      const a = canonicalDom(html1);
      const b = canonicalDom(html2);
      if (a !== b) failures.push({ source: entry.source, diff: firstDifference(a, b) });
    }
    const rate = (corpus.length - failures.length) / corpus.length;
    console.log(`round-trip fidelity: ${corpus.length - failures.length}/${corpus.length} entries identical (${(rate * 100).toFixed(2)}%)`);
    for (const f of failures) console.log(`  differs: ${f.source} ${f.diff}`);
    expect(rate).toBeGreaterThanOrEqual(0.99);
  });
});
