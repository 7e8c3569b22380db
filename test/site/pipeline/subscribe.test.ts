// The Subscribe page, where a reader lands, as a build writes it under a base path: the
// site's and every tag's feed URLs, absolute; the hosted page's email sign-up only for a
// public workspace whose hosted page is known; the widget's snippet; the header's and the
// footer's "Subscribe" link to it. The Atom and RSS feeds are plain feeds, without an XSLT
// stylesheet (Chromium is removing XSLT and warns on every feed that names one): feedsmith
// reads them, and an XML parser (saxes) finds no processing instruction before the root.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAtomFeed, parseRssFeed } from 'feedsmith';
import { SaxesParser } from 'saxes';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { readSite, WORKSPACE, writeContent } from '../../helpers/site/site-fixture.js';

const SITE = 'https://acme.github.io/changelog/';
const EVIL = '<b>Bold</b> & "co"';

/** The processing instructions before the root element, and whether the document is well-formed. */
function prolog(xml: string): Array<{ target: string; body: string }> {
  const pis: Array<{ target: string; body: string }> = [];
  let root = false;
  const parser = new SaxesParser({ xmlns: true });
  parser.on('processinginstruction', (pi) => (root ? undefined : pis.push({ target: pi.target, body: pi.body })));
  parser.on('opentag', () => (root = true));
  parser.write(xml).close();
  return pis;
}

describe('the Subscribe page and the feeds', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  const build = async (name: string, workspace: Record<string, unknown>, hostedPageUrl?: string | false) => {
    const content = await writeContent(join(dir, name), { workspace, entries: [{ title: 'Tagged', date: '2026-03-01', tags: ['New', EVIL] }] });
    const out = join(dir, name, '_site');
    await buildSite({ contentDir: content, siteDir: PACKAGED_SITE_DIR, outputDir: out, siteUrl: SITE, root: dir, search: false, baseUrl: 'https://service.example.com', hostedPageUrl });
    return out;
  };
  let out: string;
  beforeAll(async () => {
    out = await build('public', WORKSPACE);
  });

  it('lists the feeds of the site and of each tag by absolute URL under the base path, escaped', async () => {
    const page = await readSite(out, 'subscribe/index.html');
    for (const feed of ['feed.xml', 'rss.xml', 'feed.json', 'tags/new/feed.xml']) expect(page).toContain(`<code class="copy-text">${SITE}${feed}</code>`);
    expect(page).toContain('&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;co&quot;');
    expect(page).not.toContain('<b>Bold</b>');
    // The widget's snippet, as text to copy.
    expect(page).toContain(`&lt;script src=&quot;${SITE}widget.js&quot; data-target=&quot;#whats-new&quot; defer&gt;&lt;/script&gt;`);
  });

  it('"Subscribe" in the header and the footer opens it, not the raw feed', async () => {
    const index = await readSite(out, 'index.html');
    expect(index).toMatch(/<li><a href="\/changelog\/subscribe\/">Subscribe<\/a><\/li>/);
    expect(index).toContain('<p class="feeds"><a href="/changelog/subscribe/">Subscribe</a>');
    expect(await readSite(out, 'sitemap.xml')).toContain(`<loc>${SITE}subscribe/</loc>`);
  });

  it("the email sign-up links the hosted page: the service's <root>/<slug>, or the configured one; none when private, unknown or off", async () => {
    expect(await readSite(out, 'subscribe/index.html')).toContain('sign up on <a href="https://service.example.com/acme" rel="noopener">');
    const configured = await build('configured', WORKSPACE, 'https://updates.acme.example/');
    expect(await readSite(configured, 'subscribe/index.html')).toContain('sign up on <a href="https://updates.acme.example/" rel="noopener">');
    const off = await build('off', WORKSPACE, false);
    expect(await readSite(off, 'subscribe/index.html')).not.toContain('id="email"');
    const content = await writeContent(join(dir, 'private'), { workspace: { ...WORKSPACE, is_public: false }, entries: [{ title: 'Private', date: '2026-03-01' }] });
    const privateOut = join(dir, 'private', '_site');
    await buildSite({ contentDir: content, siteDir: PACKAGED_SITE_DIR, outputDir: privateOut, siteUrl: SITE, root: dir, search: false, baseUrl: 'https://service.example.com', allowPrivate: true });
    expect(await readSite(privateOut, 'subscribe/index.html')).not.toContain('id="email"');
  });

  it('promises email only where there is a sign-up; the widget is for the owners, collapsed', async () => {
    const page = await readSite(out, 'subscribe/index.html');
    expect(page).toContain('in a feed reader or by email.');
    const off = await readSite(await build('no-signup', WORKSPACE, false), 'subscribe/index.html');
    // Neither the lede, the description nor a section speaks of email.
    expect(off.replace(/<script[\s\S]*?<\/script>/g, '')).not.toMatch(/e-?mail/i);
    expect(off).toContain('in a feed reader.');
    // The snippet is in a <details> that starts closed, for the site's team.
    const details = /<details class="subscribe-section for-owners" id="widget">\s*<summary>For [^<]*'s team: the "What's new" widget<\/summary>[\s\S]*?<\/details>/.exec(page);
    expect(details?.[0]).toContain('&lt;script src=&quot;');
    expect(page.slice(0, details!.index)).not.toContain('widget.js');
  });

  it('the feeds carry no XSLT stylesheet (browsers are removing XSLT): each parses as its format, with no processing instruction, and no feed.xsl is written', async () => {
    const feeds = { 'feed.xml': parseAtomFeed, 'rss.xml': parseRssFeed, 'tags/new/feed.xml': parseAtomFeed, 'tags/new/rss.xml': parseRssFeed };
    for (const [feed, parse] of Object.entries(feeds)) {
      const xml = await readSite(out, feed);
      const title: unknown = parse(xml).title;
      expect(typeof title === 'string' ? title : (title as { value: string }).value, feed).toMatch(/^Acme/);
      expect(prolog(xml), feed).toEqual([]);
      expect(xml, feed).not.toMatch(/xml-stylesheet|\.xsl\b/);
    }
    const written = await readdir(out, { recursive: true });
    expect(written.filter((f) => /\.xslt?$/.test(f))).toEqual([]);
    // A reader who follows "Subscribe" lands on the page that explains the feeds.
    expect(await readSite(out, 'subscribe/index.html')).toContain('Paste a feed');
  });
});
