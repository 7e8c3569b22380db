// `changelog-sync dev` rebuilds what a save changes (src/site/dev/preview-data.ts): the saved
// entry's page, its neighbours', the index and tag pages it appears in, the feeds and the
// search records show the edit; a new entry joins the lists and a removed one leaves them;
// and the pages a save does not concern are not written again: their bytes and mtimes in
// the dev output folder stay as they were. Every wait is on an event: a live-reload message,
// a line `dev --verbose` prints.
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { pagefindResultUrls } from '../../helpers/browser/crawl.js';
import { runCli } from '../../helpers/process/cli.js';
import { ReloadChannel, useDev, type DevFixture } from '../../helpers/process/dev-process.js';
import { differences } from '../../helpers/site/page-cache-project.js';

/** 45 entries, one a day from 2026-01-02 (entry 1) to 2026-02-15 (entry 45): even ones tagged `api`, odd ones `ui`. */
const COUNT = 45;
const dateOf = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
const fileOf = (i: number) => `content/entries/${dateOf(i)}-entry-${i}.md`;
const entryText = (i: number, title: string, body: string) =>
  `---\ntitle: ${JSON.stringify(title)}\nslug: entry-${i}\npublish_at: ${dateOf(i)}\nis_published: true\ntags: [${i % 2 === 0 ? 'api' : 'ui'}]\n---\n\n${body}\n`;

async function get(url: string): Promise<string> {
  const res = await request(url);
  return res.body.text();
}

/**
 * Saves as an editor does (a temporary file renamed over the entry: no half-written file is
 * ever read), and resolves once the live-reload channel has said reload and `dev` has
 * written the search index of that rebuild.
 */
async function saveAndWait(fx: DevFixture, save: () => Promise<void>): Promise<void> {
  const channel = new ReloadChannel(fx.url);
  try {
    await channel.open;
    const from = fx.dev.stderr.length;
    const reloaded = channel.next('eleventy.reload');
    await save();
    await reloaded;
    // The rebuild that reloaded: the last `build N:` line since the save.
    const builds = [...fx.dev.stderr.slice(from).matchAll(/^build (\d+): \d+ pages rendered/gm)];
    expect(builds.length, fx.dev.stderr.slice(from)).toBeGreaterThan(0);
    const n = builds.at(-1)![1]!;
    await fx.dev.output(new RegExp(`search index written \\(through build (?:${n}|${Number(n) + 1})\\)`), `the search index of build ${n}`);
  } finally {
    channel.close();
  }
}

async function atomicWrite(path: string, text: string): Promise<void> {
  const tmp = join(path, '..', `.${path.split('/').at(-1)}.tmp`);
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Bytes and mtime of each page (paths under the output folder). */
async function snapshot(outputDir: string, pages: string[]): Promise<Map<string, { mtimeMs: number; text: string }>> {
  const out = new Map<string, { mtimeMs: number; text: string }>();
  for (const p of pages) out.set(p, { mtimeMs: (await stat(join(outputDir, p))).mtimeMs, text: await readFile(join(outputDir, p), 'utf8') });
  return out;
}

/** The text of every search record (Pagefind fragment) by its URL. */
async function searchRecords(outputDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const dir = join(outputDir, 'pagefind/fragment');
  for (const name of await readdir(dir)) {
    const raw = gunzipSync(await readFile(join(dir, name))).toString('utf8');
    const record = JSON.parse(raw.slice(raw.indexOf('{'))) as { url: string; content: string; meta?: { title?: string } };
    out.set(record.url, `${record.meta?.title ?? ''}\n${record.content}`);
  }
  return out;
}

describe('changelog-sync dev renders what a save changes, and leaves the other pages as they are', () => {
  const fx = useDev(
    async (dir) => {
      await mkdir(join(dir, 'content/entries'), { recursive: true });
      await mkdir(join(dir, 'content/_data'), { recursive: true });
      await writeFile(
        join(dir, 'content/_data/tags.json'),
        JSON.stringify([
          { name: 'api', slug: 'api', bg_color: '#dbeafe', text_color: '#1e40af' },
          { name: 'ui', slug: 'ui', bg_color: '#dcfce7', text_color: '#166534' },
        ]),
      );
      for (let i = 1; i <= COUNT; i++) await writeFile(join(dir, fileOf(i)), entryText(i, `Entry ${i}`, `Body of entry ${i}.`));
    },
    { args: ['--verbose'] },
  );
  const site = () => join(fx.dir, '_site');
  const page = (path: string) => new URL(path, fx.url).href;
  // Newest first: entries 45 to 26 on the home page, 25 to 6 on /page/2/, 5 to 1 on /page/3/.
  // `api` (even): 44 to 6 on /tags/api/, 4 and 2 on its page 2. `ui` (odd): 45 to 7, then 5 to 1.
  const untouchedByEdit = [
    'entries/entry-1/index.html',
    'entries/entry-10/index.html',
    'entries/entry-45/index.html',
    'index.html',
    'page/3/index.html',
    'tags/api/page/2/index.html',
    'tags/ui/index.html',
    'tags/ui/page/2/index.html',
  ];

  it('an edit shows on its page, its neighbours, its index and tag pages, the feeds and the search records; no other page is written', async () => {
    const before = await snapshot(site(), untouchedByEdit);
    // The first page is served while the first search index is written.
    await fx.dev.output(/search index written \(through build 1\)/, 'the first search index');
    expect((await searchRecords(site())).get('/entries/entry-24/')).toContain('Body of entry 24.');
    await saveAndWait(fx, () => atomicWrite(join(fx.dir, fileOf(24)), entryText(24, 'Entry 24, retitled', 'Edited body of entry 24.')));

    expect(await get(page('/entries/entry-24/'))).toContain('Edited body of entry 24.');
    for (const url of ['/entries/entry-24/', '/entries/entry-23/', '/entries/entry-25/', '/page/2/', '/tags/api/', '/feed.xml', '/feed.json', '/tags/api/feed.xml', '/tags/api/feed.json']) {
      expect(await get(page(url)), url).toContain('Entry 24, retitled');
    }
    expect(await get(page('/feed.xml'))).toContain('Edited body of entry 24.');
    const records = await searchRecords(site());
    expect(records.get('/entries/entry-24/')).toContain('Edited body of entry 24.');
    expect(records.get('/entries/entry-24/')).toContain('Entry 24, retitled');

    const after = await snapshot(site(), untouchedByEdit);
    for (const p of untouchedByEdit) expect(after.get(p), p).toEqual(before.get(p));
  });

  it('a new entry appears on the home page, its tag page, the feeds and the search records; pages it does not concern stay as they were', async () => {
    const untouched = ['entries/entry-1/index.html', 'entries/entry-24/index.html', 'tags/ui/index.html', 'tags/ui/page/2/index.html'];
    const before = await snapshot(site(), untouched);
    await saveAndWait(fx, () => atomicWrite(join(fx.dir, fileOf(46)), entryText(46, 'Entry 46, brand new', 'A new entry.')));
    for (const url of ['/', '/tags/api/', '/feed.xml', '/tags/api/feed.xml', '/entries/entry-45/', '/entries/entry-46/']) {
      expect(await get(page(url)), url).toContain('Entry 46, brand new');
    }
    expect((await searchRecords(site())).get('/entries/entry-46/')).toContain('A new entry.');
    const after = await snapshot(site(), untouched);
    for (const p of untouched) expect(after.get(p), p).toEqual(before.get(p));
  });

  it('a removed entry leaves the lists, the feeds and the search records, and its page is gone', async () => {
    const untouched = ['entries/entry-1/index.html', 'entries/entry-24/index.html', 'tags/api/index.html'];
    const before = await snapshot(site(), untouched);
    await saveAndWait(fx, () => unlink(join(fx.dir, fileOf(45))));
    for (const url of ['/', '/tags/ui/', '/feed.xml', '/tags/ui/feed.xml', '/entries/entry-44/', '/entries/entry-46/']) {
      expect(await get(page(url)), url).not.toContain('Entry 45');
    }
    expect(await pagefindResultUrls(site())).not.toContain('/entries/entry-45/');
    expect((await request(page('/entries/entry-45/'))).statusCode).toBe(404);
    const after = await snapshot(site(), untouched);
    for (const p of untouched) expect(after.get(p), p).toEqual(before.get(p));
  });

  it('after the saves and their second passes, the preview holds what a cold build of the same content writes', async () => {
    const cold = join(fx.dir, '_cold');
    const built = await runCli(['build', '--no-cache'], { cwd: fx.dir, env: { CHANGELOG_SITE_URL: fx.url, CHANGELOG_OUTPUT_DIR: cold } });
    expect(built.code, built.stderr).toBe(0);
    expect(await differences(site(), cold)).toEqual([]);
  });
});
