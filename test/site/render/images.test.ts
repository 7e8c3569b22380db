// Responsive entry images (src/site/render/images.ts and image-store.ts): the
// build command (in the test's process as the CLI runs it, helpers/process/command.ts) under a base
// path, of a content directory with a PNG, a JPEG and an SVG in content/images/ and a pulled
// copy in content/media/: every local image has its width and height, lazy loading and async
// decoding, a WebP <source> and a srcset whose files are in the output under the base path; a
// second build with the cache encodes none, a new image only itself; a build without the cache
// writes the same bytes. And the transform alone: the markup it writes is within the
// sanitiser's allowlist, and it reads nothing outside the content and site directories.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import Image from '@11ty/eleventy-img';
import { parseFragment, serialize } from 'parse5';
import { beforeAll, describe, expect, it } from 'vitest';
import { openImageStore } from '../../../src/site/render/image-store.js';
import { EntryImages } from '../../../src/site/render/images.js';
import { renderBody, sanitizeBody } from '../../../src/site/render/sanitize.js';
import { buildCommand, type BuildCommandOptions } from '../../../src/cli/commands/build.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { runCommand } from '../../helpers/process/command.js';
import { dailyEntries, drawnPng, writeContent } from '../../helpers/site/site-fixture.js';

const SITE_URL = 'https://owner.github.io/repo/';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200"><rect width="320" height="200" fill="#0ea5e9"/></svg>\n';

/** A JPEG of the given size (a drawn PNG converted by eleventy-img in memory). */
async function jpeg(width: number, height: number): Promise<Buffer> {
  const meta = await Image(drawnPng(width, height, [234, 88, 12]), { formats: ['jpeg'], widths: ['auto'], dryRun: true });
  return (meta.jpeg![0] as unknown as { buffer: Buffer }).buffer;
}

/** Every `<img>`, `<source>` and `<picture>` tag of some HTML, with its attributes (parse5's reading). */
function imageTags(html: string): Array<{ tag: string; attrs: Record<string, string>; inPicture: boolean }> {
  const out: Array<{ tag: string; attrs: Record<string, string>; inPicture: boolean }> = [];
  type Node = { nodeName: string; attrs?: Array<{ name: string; value: string }>; childNodes?: Node[]; content?: Node };
  const walk = (node: Node, inPicture: boolean) => {
    if (['img', 'source', 'picture'].includes(node.nodeName)) out.push({ tag: node.nodeName, attrs: Object.fromEntries((node.attrs ?? []).map((a) => [a.name, a.value])), inPicture });
    for (const child of node.childNodes ?? []) walk(child, inPicture || node.nodeName === 'picture');
  };
  walk(parseFragment(html), false);
  return out;
}

/** HTML as a browser reads it (parse5), each element's attributes in name order. */
function normalised(html: string): string {
  type Node = { attrs?: Array<{ name: string; value: string }>; childNodes?: Node[] };
  const fragment = parseFragment(html) as unknown as Node;
  const sort = (node: Node) => {
    node.attrs?.sort((a, b) => (a.name < b.name ? -1 : 1));
    node.childNodes?.forEach(sort);
  };
  sort(fragment);
  return serialize(fragment as never);
}

/** The URLs of a `srcset`. */
const srcsetUrls = (srcset: string) => srcset.split(',').map((c) => c.trim().split(/\s+/)[0]!);

describe('responsive entry images, through the build command', { timeout: 300_000 }, () => {
  let dir: string;
  let outputs = 0;
  useTempDir((d) => (dir = d));
  const mediaName = () => `${createHash('sha256').update(drawnPng(1000, 500, [22, 163, 74])).digest('hex')}.png`;

  interface Built {
    images: { encoded: number; reused: number; files: number };
    warnings: string[];
  }
  /** `changelog-sync [--json] build [--no-cache]` into a new output folder. */
  async function build(options: BuildCommandOptions = {}, json = true): Promise<{ out: string; result: Built; stdout: string }> {
    const out = join(dir, `out-${++outputs}`);
    const env = { CHANGELOG_SITE_URL: SITE_URL, CHANGELOG_OUTPUT_DIR: out, CHANGELOG_BUILD_CACHE: join(dir, 'cache') };
    const r = await runCommand((config, reporter) => buildCommand(config, reporter, options), { cwd: dir, env, json });
    expect(r.code, r.stderr).toBe(0);
    return { out, result: (json ? JSON.parse(r.stdout) : {}) as Built, stdout: r.stdout };
  }

  /** Every file of a built site whose bytes differ from another's (or that only one has). */
  async function differences(a: string, b: string): Promise<string[]> {
    const list = async (d: string) => new Map(await Promise.all((await readdir(d, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map(async (e) => [relative(d, join(e.parentPath, e.name)), await readFile(join(e.parentPath, e.name))] as const)));
    const [x, y] = await Promise.all([list(a), list(b)]);
    return [...new Set([...x.keys(), ...y.keys()])].filter((n) => !x.get(n) || !y.get(n) || !x.get(n)!.equals(y.get(n)!)).sort();
  }

  beforeAll(async () => {
    await writeContent(dir, {
      images: { 'dashboard.png': drawnPng(1600, 900), 'photo.jpg': await jpeg(800, 600), 'diagram.svg': Buffer.from(SVG) },
      entries: [
        ...dailyEntries(3, '2026-03-10'),
        {
          title: 'Screenshots',
          date: '2026-03-12',
          body: [
            '![The "dashboard" & more](/images/dashboard.png "Dark <mode>")',
            '![A photo](../images/photo.jpg)',
            '![Diagram](/images/diagram.svg)',
            `![Mirrored](/media/${mediaName()})`,
            '![Remote](https://cdn.example.com/remote.png)',
            '',
          ].join('\n\n'),
        },
      ],
    });
    await mkdir(join(dir, 'content/media'), { recursive: true });
    await writeFile(join(dir, 'content/media', mediaName()), drawnPng(1000, 500, [22, 163, 74]));
  });

  it('gives every local image its size, lazy and async loading, a WebP source and a srcset of files in the output, under the base path', async () => {
    const { out, result } = await build();
    expect(result.images).toMatchObject({ encoded: 4, reused: 0 });
    // 720 and 1440 of the PNG, 720 and 800 of the JPEG, 720 and 1000 of the copy, each in two formats; the SVG.
    expect(result.images.files).toBe(13);
    expect(result.warnings).toEqual([]);
    const tags = imageTags(await readFile(join(out, 'entries/screenshots/index.html'), 'utf8'));
    const imgs = tags.filter((t) => t.tag === 'img');
    const byAlt = (alt: string) => imgs.find((t) => t.attrs.alt === alt)!;
    const published = (url: string) => {
      expect(url.startsWith('/repo/img/'), url).toBe(true);
      const file = join(out, url.slice('/repo/'.length));
      expect(existsSync(file), url).toBe(true);
      return file;
    };
    // Rasters: the largest width's size (1440 at most), a WebP <source>, and a srcset in the original format.
    for (const [alt, width, height, format] of [
      ['The "dashboard" & more', 1440, 810, 'png'],
      ['A photo', 800, 600, 'jpeg'], // 720 and its own 800
      ['Mirrored', 1000, 500, 'png'],
    ] as const) {
      const img = byAlt(alt);
      expect(img.attrs, alt).toMatchObject({ width: String(width), height: String(height), loading: 'lazy', decoding: 'async' });
      expect(img.inPicture, alt).toBe(true);
      expect(img.attrs.src!.endsWith(`.${format}`), img.attrs.src).toBe(true);
      published(img.attrs.src!);
      for (const url of img.attrs.srcset ? srcsetUrls(img.attrs.srcset) : []) published(url);
    }
    expect(byAlt('The "dashboard" & more').attrs.title).toBe('Dark <mode>');
    expect(srcsetUrls(byAlt('The "dashboard" & more').attrs.srcset!)).toHaveLength(2); // 720 and 1440 wide
    const sources = tags.filter((t) => t.tag === 'source');
    expect(sources).toHaveLength(3);
    for (const s of sources) {
      expect(s.attrs.type).toBe('image/webp');
      expect(s.attrs.sizes).toBeTruthy();
      for (const url of srcsetUrls(s.attrs.srcset!)) expect((await readFile(published(url))).subarray(8, 12).toString('ascii')).toBe('WEBP');
    }
    // The SVG: one <img> with the file's size, the file as it was.
    const svg = byAlt('Diagram');
    expect(svg.attrs).toMatchObject({ width: '320', height: '200', loading: 'lazy', decoding: 'async' });
    expect(svg.inPicture).toBe(false);
    expect(await readFile(published(svg.attrs.src!), 'utf8')).toBe(SVG);
    // A remote image is left as it is, lazy and async.
    expect(byAlt('Remote').attrs).toEqual({ src: 'https://cdn.example.com/remote.png', alt: 'Remote', loading: 'lazy', decoding: 'async' });
    // The feed has them with absolute URLs under the site URL.
    const feed = await readFile(join(out, 'feed.xml'), 'utf8');
    expect(feed).toContain(`srcset=&quot;${SITE_URL}img/`);
  });

  it('encodes no image in a warm build and only a new one after it, writing the same bytes as a build without the cache', async () => {
    const cold = await build(); // the cache of the test above, or this one's
    const warm = await build();
    expect(warm.result.images).toMatchObject({ encoded: 0, reused: 4 });
    expect(await differences(cold.out, warm.out)).toEqual([]);
    const human = await build({}, false);
    expect(human.stdout).toContain('4 images: 0 encoded, 4 from the cache');
    await writeFile(join(dir, 'content/images/new.png'), drawnPng(400, 300, [220, 38, 38]));
    await writeFile(join(dir, 'content/entries/2026-03-13-new.md'), '---\ntitle: New\nslug: new\npublish_at: 2026-03-13\nstatus: published\n---\n\n![New](/images/new.png)\n');
    const added = await build();
    expect(added.result.images).toMatchObject({ encoded: 1, reused: 4 });
    const uncached = await build({ noCache: true });
    expect(uncached.result.images).toMatchObject({ encoded: 5, reused: 0 });
    expect(await differences(added.out, uncached.out)).toEqual([]);
  });
});

describe('the image transform', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it("writes markup the sanitiser keeps as it is, every attribute of the entry's escaped", async () => {
    const content = join(dir, 'content');
    await mkdir(join(content, 'images'), { recursive: true });
    await writeFile(join(content, 'images/a b.png'), drawnPng(900, 300));
    const images = new EntryImages({ contentDir: content, store: openImageStore({ cacheDir: join(dir, 'cache') }) });
    const html = renderBody('![Quote " <b>&amp;</b>](</images/a b.png> "it\'s \\"x\\"")\n\n<img src="/images/a%20b.png" id="shot" lang="en" title="&lt;script&gt;">\n');
    const out = await images.transform(html, 'entries/2026-01-01-a.md');
    expect(imageTags(out).filter((t) => t.tag === 'picture')).toHaveLength(2);
    // Read as a browser reads them (parse5), the sanitiser changes nothing.
    expect(normalised(sanitizeBody(out))).toBe(normalised(out));
    const img = imageTags(out).find((t) => t.tag === 'img' && t.attrs.id === 'shot')!;
    expect(img.attrs).toMatchObject({ lang: 'en', title: '<script>', width: '900', height: '300' });
    expect(img.attrs).not.toHaveProperty('alt'); // none given, none added
    expect(imageTags(out).find((t) => t.tag === 'img' && t.attrs.id !== 'shot')!.attrs).toMatchObject({ alt: 'Quote " <b>&</b>', title: 'it\'s "x"' });
    expect(images.warnings).toEqual([]);
  });

  it("keeps a writer's own srcset, picture and width, and reads nothing outside the content and site folders", async () => {
    const content = join(dir, 'project/content');
    await mkdir(join(content, 'images'), { recursive: true });
    await writeFile(join(content, 'images/wide.png'), drawnPng(800, 400));
    await writeFile(join(dir, 'outside.png'), drawnPng(50, 50));
    const store = openImageStore({ temporary: true });
    const images = new EntryImages({ contentDir: content, store });
    const html = sanitizeBody(
      [
        '<img src="/images/wide.png" srcset="/images/wide.png 2x" alt="own srcset">',
        '<picture><source srcset="/images/wide.png"><img src="/images/wide.png" alt="own picture"></picture>',
        '<img src="/images/wide.png" width="200" alt="own width">',
        '<img src="/../../outside.png" alt="up">',
        '<img src="../../../outside.png" alt="relative up">',
      ].join('\n'),
    );
    const out = await images.transform(html, 'entries/2026-01-01-a.md');
    const imgs = imageTags(out).filter((t) => t.tag === 'img');
    const byAlt = (alt: string) => imgs.find((t) => t.attrs.alt === alt)!;
    expect(byAlt('own srcset').attrs).toMatchObject({ src: '/images/wide.png', srcset: '/images/wide.png 2x', width: '800', height: '400' });
    expect(byAlt('own picture').attrs).toMatchObject({ src: '/images/wide.png', width: '800', height: '400' });
    expect(byAlt('own width').attrs).toMatchObject({ width: '200', height: '100' });
    expect(byAlt('own width').inPicture).toBe(true);
    expect(byAlt('up').attrs).toEqual({ src: '/../../outside.png', alt: 'up', loading: 'lazy', decoding: 'async' });
    expect(byAlt('relative up').attrs).toEqual({ src: '../../../outside.png', alt: 'relative up', loading: 'lazy', decoding: 'async' });
    expect(store.stats).toEqual({ encoded: 1, reused: 0 });
    await store.close();
  });
});

describe('the image store', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('encodes an image once per content hash, again when its file was cut short or its manifest is corrupt, and keeps only the images of its last build', async () => {
    const cacheDir = join(dir, 'cache');
    const file = join(dir, 'shot.png');
    await writeFile(file, drawnPng(1000, 400));
    const bytes = await readFile(file);
    const first = openImageStore({ cacheDir });
    const variants = await first.variants(file, bytes);
    await first.variants(file, bytes); // the same bytes: looked up once
    expect(first.stats).toEqual({ encoded: 1, reused: 0 });
    await first.save();
    const names = Object.values(variants).flat().map((v) => v.filename!);
    expect(names.sort()).toEqual((await readdir(join(cacheDir, 'images'))).sort());

    // Another build, another name for the same bytes: from the cache.
    const moved = join(dir, 'renamed.png');
    await writeFile(moved, bytes);
    const second = openImageStore({ cacheDir });
    expect(await second.variants(moved, bytes)).toEqual(variants);
    expect(second.stats).toEqual({ encoded: 0, reused: 1 });
    expect(second.note).toBeUndefined();

    // A file cut short (a killed build, a damaged cache) is encoded again.
    await writeFile(join(cacheDir, 'images', names[0]!), 'cut');
    const third = openImageStore({ cacheDir });
    await third.variants(file, bytes);
    expect(third.stats).toEqual({ encoded: 1, reused: 0 });
    expect((await readFile(join(cacheDir, 'images', names[0]!))).length).toBeGreaterThan(3);
    await third.save();

    // A corrupt manifest is not used, and says so.
    const manifest = join(cacheDir, 'images.json');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"width"', '"wodth"'));
    const fourth = openImageStore({ cacheDir });
    await fourth.variants(file, bytes);
    expect(fourth.stats).toEqual({ encoded: 1, reused: 0 });
    expect(fourth.note).toContain('was not used: it is corrupt or incomplete (its checksum does not match)');

    // A build with another image only: the first one's files go.
    const other = drawnPng(300, 200, [220, 38, 38]);
    await writeFile(join(dir, 'other.png'), other);
    const fifth = openImageStore({ cacheDir });
    const otherVariants = await fifth.variants(join(dir, 'other.png'), other);
    await fifth.save();
    expect((await readdir(join(cacheDir, 'images'))).sort()).toEqual(Object.values(otherVariants).flat().map((v) => v.filename!).sort());
  });
});
