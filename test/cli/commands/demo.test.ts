// The demo looks like a real changelog: its logo, Open Graph image and entry images ship
// with the package and are in the built site (the service's screenshots by way of the
// emulator's image host and pull's mirror); no page of `npm start`'s site names an image
// that does not resolve to a file of the site.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempDir } from '../../helpers/cli.js';

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

describe("the demo's images", () => {
  let dir = '';
  useTempDir((d) => (dir = d));

  it('every image of every page of the demo site is a file of the site', async () => {
    const r = await runCli(['sync'], { cwd: dir });
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
