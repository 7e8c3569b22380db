// The base path written by one scan over each page (src/site/render/base-path.ts) against
// Eleventy's own HTML base plugin (posthtml), both in a real Eleventy build under
// `/repo/`: every element, attribute and text of the page is the same; the scan leaves the
// bytes outside the URLs it changes as they were. An entry's body, sanitised, is converted
// the same way without posthtml (synchronously: the `pageHtml` filter).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Eleventy from '@11ty/eleventy';
import * as eleventyExports from '@11ty/eleventy';
import { Parser } from 'htmlparser2';
import { beforeAll, describe, expect, it } from 'vitest';
import { addBasePath, basePathTransform, sanitisedBasePathTransform, type BasePathConfig } from '../../../src/site/render/base-path.js';
import { useTempDir } from '../../helpers/process/cli.js';

/** Eleventy's HTML base plugin (exported by Eleventy 3; its typings do not name it). */
const HtmlBasePlugin = (eleventyExports as unknown as { HtmlBasePlugin: unknown }).HtmlBasePlugin;

/** Every URL form the base plugin handles, and places where no URL may be touched. */
const PAGE = `<!doctype html>
<html lang="en"><head>
<title>A <a href="/not-a-link/"> in a title</title>
<meta name="description" content="/not/a/url">
<meta http-equiv="refresh" content="5; url=/moved/">
<link rel="stylesheet" href="/bundle/site.css">
<link rel=alternate href=/feed.xml type=application/atom+xml>
<script src='/widget.js'></script>
<script>var s = '<a href="/inside-script/">';</script>
<style>a[href="/inside-style/"] { color: red }</style>
</head>
<body>
<!-- <a href="/inside-comment/"> -->
<a href="/">Home</a> <a href="/entries/x/#top">Entry</a> <a href="#top">Top</a> <a href="https://elsewhere.test/a">Out</a>
<a href="//cdn.test/x.js">Protocol-relative</a> <a href="mailto:team@acme.test">Mail</a> <a href="relative/page/">Relative</a>
<a href="./dot/../up/">Dots</a> <a href>Empty</a> <a href="  /spaced/  ">Spaced</a>
<a title="a > b" href="/after-gt/">Quoted greater-than</a> <a href="/q?x=1&amp;y=2">Query</a>
<img src="/images/a.png" srcset="/images/a.png 1x, /images/a@2x.png 2x" alt="">
<picture><source srcset="/images/b.webp 640w, https://cdn.test/b.webp 1280w" type="image/webp"><img src="/images/b.png" alt=""></picture>
<img srcset='/images/c.png 1.5x,relative/d.png  3x' src="/images/c.png" alt="" /> <img srcset="/images/e.png?w=1&amp;h=2" alt=""> <img srcset=/images/f.png alt="">
<img srcset="/images/g.png 640w 480h, /images/h.png 1280w 960h" alt="" sizes="50vw"> <img srcset="" alt="">
<video src="/media/v.mp4" poster="/media/poster.png"></video> <audio src="/media/a.mp3"></audio>
<form action="/search/" method="get"><input type="image" src="/images/go.png"><button formaction="/other/">Go</button></form>
<blockquote cite="/source/">Q</blockquote> <a href="/ping/" ping="/p1/ /p2/">Ping</a>
<iframe src="/frame/"></iframe> <object data="/obj.svg"></object> <embed src="/embed.swf">
<p>Text with /a/path and href="/not-an-attribute/" in it.</p>
</body></html>
`;

/** The page as a sequence of elements (with attributes) and texts. */
function structure(html: string): string[] {
  const out: string[] = [];
  const parser = new Parser(
    {
      onopentag: (name, attributes) => out.push(`<${name} ${JSON.stringify(attributes)}`),
      onclosetag: (name) => out.push(`</${name}`),
      ontext: (text) => {
        if (text.trim()) out.push(`text ${text.replace(/\s+/g, ' ').trim()}`);
      },
      oncomment: (text) => out.push(`comment ${text}`),
    },
    { decodeEntities: false },
  );
  parser.end(html);
  return out;
}

describe('the base path by one scan over the page, against the HTML base plugin', () => {
  let dir: string;
  let scanned: string;
  let plugin: string;
  useTempDir((d) => (dir = d));

  /** Builds PAGE under /repo/ with `setup` configuring Eleventy; the page written. */
  async function build(name: string, setup: (config: BasePathConfig & { addPlugin(p: unknown): void }) => void): Promise<string> {
    const input = join(dir, `${name}-in`);
    await mkdir(input, { recursive: true });
    await writeFile(join(input, 'page.html'), PAGE);
    // An empty configuration file: not the .eleventy.js of the working directory.
    await writeFile(join(dir, 'none.mjs'), 'export default function () {}\n');
    const eleventy = new Eleventy(input, join(dir, `${name}-out`), {
      quietMode: true,
      configPath: join(dir, 'none.mjs'),
      pathPrefix: '/repo/',
      config: (c: BasePathConfig & { addPlugin(p: unknown): void; setTemplateFormats(f: string[]): void }) => {
        c.setTemplateFormats(['html']);
        setup(c);
      },
    });
    eleventy.logger.overrideLogger({ log() {}, info() {}, warn() {}, error() {} });
    await eleventy.write();
    return readFile(join(dir, `${name}-out/page/index.html`), 'utf8');
  }

  beforeAll(async () => {
    plugin = await build('plugin', (c) => c.addPlugin(HtmlBasePlugin));
    // As the site plugin does it: from a plugin, where Eleventy adds a plugin at once.
    scanned = await build('scan', (c) => c.addPlugin((inner: typeof c) => addBasePath(inner, () => inner.addPlugin(HtmlBasePlugin), true)));
  });

  it('writes the same elements, attributes and text as the plugin', () => {
    expect(structure(scanned)).toEqual(structure(plugin));
  });

  it("reads tags as a browser does: a textarea's text is text, a tag name in capitals is that tag (the plugin's parser differs in both)", async () => {
    const page = '<p><textarea><a href="/inside-textarea/"></textarea><a href="/after/">A</a> <A HREF="/UPPER/">B</A></p>';
    const transform = basePathTransform({ url: (u) => (u.startsWith('/') ? `/repo${u}` : u), html: (h) => Promise.resolve(h) });
    expect(await transform(page)).toBe('<p><textarea><a href="/inside-textarea/"></textarea><a href="/repo/after/">A</a> <A HREF="/repo/UPPER/">B</A></p>');
  });

  it('adds the base path where the plugin does, and nowhere else', () => {
    expect(plugin).not.toBe(PAGE); // the comparison above compares something
    for (const url of ['/repo/bundle/site.css', '/repo/feed.xml', '/repo/widget.js', '/repo/entries/x/#top', '/repo/images/a@2x.png 2x', '/repo/moved/', '/repo/search/', '/repo/after-gt/']) {
      expect(scanned).toContain(url);
    }
    for (const untouched of ['/inside-script/', '/inside-style/', '/inside-comment/', '/not-a-link/', 'content="/not/a/url"', 'href="/not-an-attribute/"', 'href="#top"', 'https://elsewhere.test/a', 'href="//cdn.test/x.js"']) {
      expect(scanned).toContain(untouched);
    }
    expect(scanned).not.toMatch(/\/repo\/(?:inside-|not-)/);
  });

  it('leaves the page byte for byte outside the URLs it changes', () => {
    // Take the base path out again: what remains is the page as written, quotes and all
    // (the plugin writes the page out again from its tree). A `srcset` value is written
    // again as the plugin writes it (candidates joined by ", "); the tag around it is not.
    const restored = scanned
      .replaceAll('/repo/', '/')
      .replace('<a href=".">Empty', '<a href>Empty')
      .replace('href="/spaced/"', 'href="  /spaced/  "')
      .replace('href="up/"', 'href="./dot/../up/"')
      .replace("'/images/c.png 1.5x, relative/d.png 3x'", "'/images/c.png 1.5x,relative/d.png  3x'");
    // Only the tags with another multi-URL attribute go through the plugin's own transform.
    const throughPlugin = /<a href="\/ping\/"[^>]*>|<meta http-equiv[^>]*>/g;
    expect(restored.replace(throughPlugin, '')).toBe(PAGE.replace(throughPlugin, ''));
    expect(scanned).toContain(`<img src="/repo/images/a.png" srcset="/repo/images/a.png 1x, /repo/images/a@2x.png 2x" alt="">`);
    expect(scanned).toContain(`<img srcset='/repo/images/c.png 1.5x, relative/d.png 3x' src="/repo/images/c.png" alt="" />`);
  });

  it('converts a sanitised body without posthtml, to the same bytes, and refuses one that was not sanitised', async () => {
    const url = (u: string) => (u.startsWith('/') ? `/repo${u}` : u);
    const body = '<p><img loading="lazy" src="/a.png" srcset="/a.png 1x,  /a@2x.png 2x" alt="" /><a href="/x/">x</a></p>';
    const viaPosthtml = basePathTransform({ url, html: () => Promise.reject(new Error('no tag goes through posthtml')) });
    expect(sanitisedBasePathTransform(url)(body)).toBe(await viaPosthtml(body));
    expect(sanitisedBasePathTransform(url)(body)).toBe('<p><img loading="lazy" src="/repo/a.png" srcset="/repo/a.png 1x, /repo/a@2x.png 2x" alt="" /><a href="/repo/x/">x</a></p>');
    expect(() => sanitisedBasePathTransform(url)('<a href="/x/" ping="/p/">x</a>')).toThrow(/sanitised HTML expected: <a>/);
  });
});
