// The HTML push sends: every site URL of a new entry's body absolute on
// the published site (base path kept), links to other entries as their pages, the rest of
// the HTML byte for byte; the URL rewrite is a parser's (comments and scripts are not markup).
import { describe, expect, it } from 'vitest';
import { htmlUrls, rewriteHtmlUrls } from '../../../src/convert/html-urls.js';
import { markdownToHtml } from '../../../src/convert/markdown-to-html.js';
import { outgoingBody } from '../../../src/sync/push/push-body.js';
import { bodyRef } from '../../../src/entry/body-refs.js';
import { entryPermalinks } from '../../../src/entry/permalinks.js';
import type { IndexedFile } from '../../../src/entry/entry-files.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';

const SITE = 'https://owner.github.io/repo/';
const FILE = 'entries/2026-04-01-dark-mode.md';

/** Parsed entry files, as readEntryFiles gives them. */
function files(spec: Record<string, string>): IndexedFile[] {
  return Object.entries(spec).map(([rel, text]) => {
    const raw = Buffer.from(text);
    return { rel, abs: `/x/${rel}`, raw, hash: '', entry: parseEntryFile(rel, raw) };
  });
}

const MIRROR = files({
  'entries/2026-03-01-custom-roles.md': '---\ntitle: Custom roles\nslug: custom-roles\nidentifier: 11111111-1111-4111-8111-111111111111\nstatus: published\npublish_at: 2026-03-01\n---\nRoles.\n',
  'entries/2026-02-01-draft.md': '---\ntitle: Not yet\nis_published: false\n---\nLater.\n',
  [FILE]: '---\ntitle: Dark mode\nis_published: true\n---\nBody.\n',
});
const PERMALINKS = entryPermalinks(MIRROR, '2026-05-01');

describe('entryPermalinks: the site routes push links to', () => {
  it('gives each entry with a page its /entries/<slug>/, and none to a draft', () => {
    expect(PERMALINKS.get('entries/2026-03-01-custom-roles.md')).toBe('/entries/custom-roles/');
    expect(PERMALINKS.get(FILE)).toBe('/entries/dark-mode/');
    expect(PERMALINKS.get('entries/2026-02-01-draft.md')).toBeNull();
  });
});

describe('outgoingBody', () => {
  const send = (md: string, siteUrl: string | undefined = SITE) => outgoingBody(md, FILE, PERMALINKS, siteUrl);

  it.each([
    ['/images/dark.svg', `${SITE}images/dark.svg`],
    ['../images/dark.svg', `${SITE}images/dark.svg`],
    ['images/dark.svg', `${SITE}images/dark.svg`],
    ['./../images/sub/a b.png', `${SITE}images/sub/a%20b.png`],
    ['/images/dark.svg?v=2', `${SITE}images/dark.svg?v=2`],
  ])('an image written %s is sent as %s, and must answer', (written, sent) => {
    const out = send(`![The dashboard](<${written}>)\n`);
    expect(htmlUrls(out.html)).toEqual([{ url: sent, tag: 'img', attribute: 'src', image: true }]);
    expect(out.images).toEqual([sent]);
  });

  it.each([
    ['/entries/custom-roles/', `${SITE}entries/custom-roles/`],
    ['./2026-03-01-custom-roles.md', `${SITE}entries/custom-roles/`],
    ['2026-03-01-custom-roles.md#limits', `${SITE}entries/custom-roles/#limits`],
    ['../entries/2026-03-01-custom-roles.md', `${SITE}entries/custom-roles/`],
    ['/', SITE],
    ['/feed.xml', `${SITE}feed.xml`],
  ])('a link written %s points at %s', (written, sent) => {
    const out = send(`See [custom roles](${written}).\n`);
    expect(htmlUrls(out.html).map((u) => u.url)).toEqual([sent]);
    expect(out.images).toEqual([]);
  });

  it('keeps absolute URLs, mailto and fragments as written; an absolute image must answer too', () => {
    const md = '[a](https://example.com/x) [m](mailto:a@example.com) [f](#details) ![remote](https://cdn.example.com/a.png)\n';
    const out = send(md);
    expect(out.html).toBe(markdownToHtml(md));
    expect(out.images).toEqual(['https://cdn.example.com/a.png']);
  });

  it('rewrites raw HTML images and links, srcset, and nothing else: every other byte as marked wrote it', () => {
    const md = 'Text & more <img src="/images/a.png" alt="A &amp; B" width="10"> <a href=\'../images/b.png\' title="t">b</a>\n\n<img srcset="/images/c.png 1x, https://x.test/d.png 2x" src=/images/c.png alt=c>\n\n<!-- <img src="/images/comment.png"> -->\n';
    const out = send(md);
    const base = markdownToHtml(md);
    expect(out.html).toBe(
      base
        .replace('src="/images/a.png"', `src="${SITE}images/a.png"`)
        .replace("href='../images/b.png'", `href="${SITE}images/b.png"`)
        .replace('srcset="/images/c.png 1x, https://x.test/d.png 2x"', `srcset="${SITE}images/c.png 1x, https://x.test/d.png 2x"`)
        .replace('src=/images/c.png', `src="${SITE}images/c.png"`),
    );
    expect(out.html).toContain('<!-- <img src="/images/comment.png"> -->');
    expect(out.images).toEqual([`${SITE}images/a.png`, `${SITE}images/c.png`, 'https://x.test/d.png']);
  });

  it('a site at the root of its host: no base path', () => {
    expect(send('![x](/images/x.png)\n', 'https://changelog.example.com/').images).toEqual(['https://changelog.example.com/images/x.png']);
  });

  it('escapes what it writes into the attribute', () => {
    const html = rewriteHtmlUrls('<a href="/x">x</a>', () => 'https://e.test/?a=1&b="2"');
    expect(html).toBe('<a href="https://e.test/?a=1&amp;b=&quot;2&quot;">x</a>');
  });

  it('without a site URL: the site URLs are unresolved (the file is not sent), the HTML keeps them', () => {
    const out = outgoingBody('![x](/images/x.png) [y](https://example.com/)\n', FILE, PERMALINKS, undefined);
    expect(out.unresolved).toEqual(['/images/x.png']);
    expect(out.html).toContain('src="/images/x.png"');
  });
});

describe('bodyRef', () => {
  it('a link to an entry file without a page is named, not guessed', () => {
    expect(bodyRef('./2026-02-01-draft.md', FILE, PERMALINKS)).toEqual({ kind: 'no-page', file: 'entries/2026-02-01-draft.md' });
  });
  it('a .md path that is no entry file is read as any other path (a link in text copied from a repository)', () => {
    expect(bodyRef('./docs/metadata.md#query', FILE, PERMALINKS)).toEqual({ kind: 'site', path: '/entries/dark-mode/docs/metadata.md#query' });
  });
  it('an image path that leaves the images folder is not an image of the repository', () => {
    expect(bodyRef('/images/../secret.png', FILE, PERMALINKS)).toMatchObject({ kind: 'site', image: undefined });
    expect(bodyRef('/images/a%2Fb.png', FILE, PERMALINKS)).toMatchObject({ kind: 'site', image: 'a/b.png' });
  });
});
