// `npm start` (`sync` with no token): the demo, one run. It pulls the demo's two products, a
// workspace each, from the built-in emulator, pushes the local demo entries into the first,
// builds one site of both, and writes only under .demo/. The demo looks like a real changelog: its logo, Open Graph image and entry images ship with the
// package and are in the built site (the service's screenshots by way of the emulator's image
// host and pull's mirror); no page of its site names an image that does not resolve to a file
// of the site.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, useTempDir, type CliResult } from '../../helpers/process/cli.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

/** The demo's site URL (the configuration's default). */
const SITE_URL = 'http://localhost:8080/';

/** Every image a page names: `<img src>`, the icon, the Open Graph and Twitter images. */
function imageUrls(html: string): string[] {
  return [
    ...[...html.matchAll(/<img\b[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/<link\b[^>]*rel="icon"[^>]*href="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/<meta\b[^>]*(?:property|name)="(?:og|twitter):image"[^>]*content="([^"]+)"/g)].map((m) => m[1]!),
  ];
}

describe('npm start: the demo main job', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let r: CliResult;
  beforeAll(async () => {
    // A git repository with the project's .gitignore, to prove `git status` stays clean.
    await cp(join(REPO, '.gitignore'), join(dir, '.gitignore'));
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['add', '.gitignore'], { cwd: dir });
    r = await runCli(['sync'], { cwd: dir });
  });

  it('with no token: emulator, pull, push, build, summary, exit 0, and writes only under .demo/', async () => {
    expect(r.stderr).toContain('No CHANGELOG_TOKEN is set: running the DEMO against the built-in emulator');
    expect(r.stderr).toContain('workspaces "Lumen App" and "Lumen API"). Everything is written under .demo/, which git ignores.');
    expect(r.code).toBe(0);
    // Each product synced as its own workspace, the local entries pushed into the first; one build.
    expect(r.stdout).toContain('[app] Done: pulled 20 entries (20 new, 0 updated), pushed 3;');
    expect(r.stdout).toContain('[api] Done: pulled 7 entries (7 new, 0 updated), pushed 0;');
    // 25 entry pages; the combined home (two pages) and each product's; each product's 5 tag pages and
    // tag index; search, subscribe, 404; and 25 redirect pages, of the first product's old URLs.
    expect(r.stdout).toMatch(/^Built 69 pages in \.demo\/_site$/m);
    // Why 30 entries make 25 pages, and how to look at the site.
    expect(r.stderr).toContain('25 of 30 entries are on the site; left out: 2 drafts (not published), 3 scheduled after today (on the site from their date)');
    expect(r.stderr).toContain('View the site: serve .demo/_site/ at http://localhost:8080/ with any static file server (opening its files directly shows them unstyled); `npx changelog-sync dev --demo` is a live preview of its first product.');
    expect(await readdir(join(dir, '.demo/content/app/entries'))).toHaveLength(23);
    expect(await readdir(join(dir, '.demo/content/api/entries'))).toHaveLength(7);
    const site = (file: string) => readFile(join(dir, '.demo/_site', file), 'utf8');
    // The combined home page: the site's title, both products' entries marked with their product, a filter of both.
    const index = await site('index.html');
    expect(index).toContain('<h1>Lumen changelog</h1>');
    expect(index).toContain('Funnel step timing'); // pushed by the demo into the app
    expect(index).toContain('Batch event ingestion'); // the API's
    expect(index).toContain('<li><a class="tag" href="/app/">Lumen App</a></li>');
    expect(index).toContain('<li><a class="tag" href="/api/">Lumen API</a></li>');
    expect(index).toMatch(/<a class="entry-product" href="\/api\/">/);
    // show_backlink is set in the demo workspace, but the demo has no hosted page: the
    // emulator serves none and is gone when the command ends. No link to its port.
    expect(index).not.toContain('on the hosted changelog');
    const port = /built-in emulator of the changelog service\n\(http:\/\/127\.0\.0\.1:(\d+)/.exec(r.stderr)![1]!;
    for (const file of ['index.html', 'subscribe/index.html', 'feed.xml', 'app/index.html', 'api/feed.xml']) expect(await site(file), file).not.toContain(`127.0.0.1:${port}`);
    // Each product's section: its own entries and tags (the service's, pulled: the demo's listing carries them).
    const app = await site('app/index.html');
    expect(app).toContain('<h1>Lumen App changelog</h1>');
    expect(app).toContain('Dark mode is here'); // pulled
    expect(app).toContain('href="/app/tags/fix/"');
    expect(app).not.toContain('Batch event ingestion');
    expect(app).not.toContain('Custom roles for workspace admins'); // a draft
    expect(app).not.toContain('Goals &amp; OKR tracking'); // scheduled in the future
    const api = await site('api/index.html');
    expect(api).toContain('<h1>Lumen API changelog</h1>');
    expect(api).toContain('href="/api/tags/sdk/"');
    expect(api).not.toContain('Dark mode is here');
    expect(api).not.toContain('API v3 preview'); // scheduled
    // One slug in both products: a page each.
    expect(await site('app/entries/hello-lumen/index.html')).toContain('Hello, Lumen: our first changelog');
    expect(await site('api/entries/hello-lumen/index.html')).toContain('Hello, Lumen API: our developer changelog');
    // The combined feed at the root, each product's under its key.
    const entriesOf = async (file: string) => (await site(file)).match(/<entry>/g)?.length;
    expect([await entriesOf('feed.xml'), await entriesOf('app/feed.xml'), await entriesOf('api/feed.xml')]).toEqual([25, 19, 6]);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir }).toString()).toBe('A  .gitignore\n');
  });

  it('every image of every page of the demo site is a file of the site', async () => {
    expect(r.code, r.stderr).toBe(0);
    const site = join(dir, '.demo/_site');
    const pages = (await readdir(site, { recursive: true })).filter((f) => f.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(20);
    const broken: string[] = [];
    const seen = new Set<string>();
    for (const page of pages) {
      for (const url of imageUrls(await readFile(join(site, page), 'utf8'))) {
        seen.add(url);
        const path = url.startsWith(SITE_URL) ? url.slice(SITE_URL.length - 1) : url.startsWith('/') ? url : undefined;
        if (path === undefined || !existsSync(join(site, decodeURIComponent(path.split(/[?#]/)[0]!)))) broken.push(`${page}: ${url}`);
      }
    }
    expect(broken).toEqual([]);
    // The logo and the Open Graph image are among them; the entries' pictures are there as
    // the build's copies under /img/ (src/site/render/images.ts), byte for byte: the local entry's
    // screenshot, and those of the service's image host that pull mirrored into content/media/
    // (five; one is in an entry scheduled for later, not on the site yet).
    expect([...seen]).toEqual(expect.arrayContaining([`${SITE_URL}images/lumen-logo.svg`, `${SITE_URL}images/lumen-og.png`]));
    const published = await Promise.all([...seen].filter((u) => u.startsWith('/img/')).map((u) => readFile(join(site, u))));
    const local = await readFile(join(dir, '.demo/content/app/images/mobile-dashboards.svg'));
    expect(published.some((b) => b.equals(local)), 'mobile-dashboards.svg').toBe(true);
    const mediaDir = join(dir, '.demo/content/app/media');
    const media = await readdir(mediaDir);
    expect(media).toHaveLength(5);
    const shown = [];
    for (const name of media) {
      const bytes = await readFile(join(mediaDir, name));
      if (published.some((b) => b.equals(bytes))) shown.push(name);
    }
    expect(shown).toHaveLength(4);
    expect([...seen].filter((u) => u.includes('127.0.0.1'))).toEqual([]);
  });
});
