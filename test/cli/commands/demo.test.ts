// `npm start` (`sync` with no token): the demo, one run. It pulls the demo workspace from the
// built-in emulator, pushes the local demo entries, builds, and writes only under .demo/. The
// demo looks like a real changelog: its logo, Open Graph image and entry images ship with the
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
    expect(r.code).toBe(0);
    // 19 entry pages, the index, 5 tag pages (the service's tags and the local entries') and the tag index, search, subscribe, 404.
    expect(r.stdout).toMatch(/Done: pulled 20 entries \(20 new, 0 updated\), pushed 3, 29 pages in \.demo\/_site/);
    // Why 23 entries make 19 pages, and how to look at the site.
    expect(r.stderr).toContain('19 of 23 entries are on the site; left out: 2 drafts (not published), 2 scheduled after today (on the site from their date)');
    expect(r.stderr).toContain('View the site: `npx changelog-sync dev --demo` (a live preview), or serve .demo/_site/ at http://localhost:8080/ with any static file server');
    const entries = await readdir(join(dir, '.demo/content/entries'));
    expect(entries).toHaveLength(23);
    const index = await readFile(join(dir, '.demo/_site/index.html'), 'utf8');
    expect(index).toContain('Funnel step timing'); // pushed by the demo
    // show_backlink is set in the demo workspace, but the demo has no hosted page: the
    // emulator serves none and is gone when the command ends. No link to its port.
    expect(index).not.toContain('on the hosted changelog');
    const port = /built-in emulator of the changelog service\n\(http:\/\/127\.0\.0\.1:(\d+)/.exec(r.stderr)![1]!;
    for (const file of ['index.html', 'subscribe/index.html', 'feed.xml']) expect(await readFile(join(dir, '.demo/_site', file), 'utf8'), file).not.toContain(`127.0.0.1:${port}`);
    // The service's tags of each entry are pulled (the demo's listing carries them).
    expect(index).toContain('href="/tags/fix/"');
    expect(index).toContain('Dark mode is here'); // pulled
    expect(index).not.toContain('Custom roles for workspace admins'); // a draft
    expect(index).not.toContain('Goals &amp; OKR tracking'); // scheduled in the future
    const feed = await readFile(join(dir, '.demo/_site/feed.xml'), 'utf8');
    expect(feed.match(/<entry>/g)).toHaveLength(19);
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
    const local = await readFile(join(dir, '.demo/content/images/mobile-dashboards.svg'));
    expect(published.some((b) => b.equals(local)), 'mobile-dashboards.svg').toBe(true);
    const mediaDir = join(dir, '.demo/content/media');
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
