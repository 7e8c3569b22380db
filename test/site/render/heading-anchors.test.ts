// Heading ids and anchor links of entry bodies (src/site/render/heading-anchors.ts), through the
// real renderer: stable ids from the heading text, unique within the body and apart from
// the layout's ids, escaped text in the link's name.
import { describe, expect, it } from 'vitest';
import { addHeadingAnchors, headingSlug } from '../../../src/site/render/heading-anchors.js';
import { renderBody } from '../../../src/site/render/sanitize.js';

const ids = (html: string) => [...html.matchAll(/<h[1-6] id="([^"]*)"/g)].map((m) => m[1]);

describe('heading anchors', () => {
  it('gives each heading an id from its text and a named link to it', () => {
    expect(renderBody('## Bug Fixes\n\ntext\n')).toBe(
      '<div class="heading-anchored"><h2 id="bug-fixes">Bug Fixes</h2><a class="heading-anchor" href="#bug-fixes" aria-label="Link to this section: Bug Fixes" data-pagefind-ignore></a></div>\n<p>text</p>\n',
    );
  });

  it('numbers repeated headings, and the same body gives the same ids every time', () => {
    const body = '### Bug Fixes\n\n### New Features and Enhancements\n\n### Bug Fixes\n\n### ⚠ BREAKING CHANGES\n\n### **New Features and Enhancements:**\n';
    expect(ids(renderBody(body))).toEqual(['bug-fixes', 'new-features-and-enhancements', 'bug-fixes-1', 'breaking-changes', 'new-features-and-enhancements-1']);
    expect(renderBody(body)).toBe(renderBody(body));
  });

  it('never takes an id of the layout or one the body already has', () => {
    expect(ids(renderBody('## Main\n\n## Search\n\n## Entry notes\n\n<p id="setup">x</p>\n\n## Setup\n'))).toEqual(['main-1', 'search-1', 'section-entry-notes', 'setup-1']);
  });

  it('keeps a heading\'s own id and links to it', () => {
    const html = addHeadingAnchors('<h2 id="mine">Mine</h2>');
    expect(html).toContain('<h2 id="mine">Mine</h2><a class="heading-anchor" href="#mine"');
  });

  it('escapes the heading\'s text in the link\'s name and keeps ids to [a-z0-9-]', () => {
    const html = renderBody('## Say "hi" & <b>bye</b> \' `x<y`\n');
    expect(html).toContain('aria-label="Link to this section: Say &quot;hi&quot; &amp; bye &#39; x&lt;y"');
    expect(ids(html)[0]).toMatch(/^[a-z0-9-]+$/);
    expect(headingSlug('🎉')).toBe('section');
  });
});
