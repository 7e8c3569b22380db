// The real changelog end to end: 764 entries remote -> pull -> build, and local -> push.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { EmulatorStore } from '../../src/emulator/store.js';
import { parseEntryFile } from '../../src/entry/entry-file.js';
import { runCli, tempDir } from '../helpers/process/cli.js';
import { CORPUS_DIR, loadCorpus, writeCorpusEntries, type CorpusEntry } from './corpus.js';
import { CLOSED_PORT } from '../helpers/service/closed-port.js';

const corpus: CorpusEntry[] = existsSync(CORPUS_DIR) ? loadCorpus() : [];

describe.runIf(corpus.length > 0)('the real changelog corpus', () => {
  it('has the entries DESIGN.md describes', () => {
    expect(corpus.length).toBe(764);
  });

  describe('remote -> pull -> build', () => {
    let emu: RunningEmulator;
    let dir: string;
    let cleanup: () => Promise<void>;
    const byIdentifier = new Map<string, CorpusEntry>();
    /** The image URLs the entries show: on a host the test cannot reach (a closed loopback port: nothing leaves the machine). */
    const images = new Set<string>();
    beforeAll(async () => {
      // Rendered by markdown-it: a different renderer than push's marked.
      const md = new MarkdownIt({ html: true, linkify: false });
      const store = new EmulatorStore();
      const ws = store.addWorkspace({ name: 'Box Developer Changelog', tokens: ['corpus-token'] });
      // The corpus itself has no images: each entry gets a screenshot of its own, and every
      // tenth the workspace's shared banner too, as a real changelog's entries would.
      const host = `http://127.0.0.1:${CLOSED_PORT}`;
      for (const [i, e] of corpus.entries()) {
        const shots = [`${host}/screenshots/${i}-${encodeURIComponent(e.slug)}.png`, ...(i % 10 === 0 ? [`${host}/banner.png`] : [])];
        for (const s of shots) images.add(s);
        const html = md.render(e.body) + shots.map((s) => `<p><img src="${s}" alt="Screenshot"></p>`).join('');
        const created = store.insertEntry(ws, { title: e.title, slug: e.slug, publish_at: e.date, status: 'published', content: html });
        byIdentifier.set(created.identifier, e);
      }
      emu = await startEmulator({ port: 0, store });
      ({ dir, cleanup } = await tempDir());
    });
    afterAll(async () => {
      await emu.close();
      await cleanup();
    });

    it('pull writes one file per entry with matching title, slug and date; each unreachable image is reported once', async () => {
      const r = await runCli(['--json', 'pull'], { cwd: dir, env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'corpus-token' }, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      const pulled = JSON.parse(r.stdout) as { created: unknown[]; media: { fetched: number; written: string[]; failed: Array<{ url: string; entries: unknown[] }> } };
      expect(pulled.created).toHaveLength(corpus.length);
      // Every image not downloaded, once, with the entries that show it; the entries keep its URL.
      expect(pulled.media.written).toEqual([]);
      expect(pulled.media.failed.map((f) => f.url).sort()).toEqual([...images].sort());
      expect(pulled.media.failed.find((f) => f.url.endsWith('/banner.png'))!.entries).toHaveLength(Math.ceil(corpus.length / 10));
      // A second pull fetches nothing (the failures are tried again a day later) and writes nothing.
      const again = await runCli(['--json', 'pull'], { cwd: dir, env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'corpus-token' }, timeoutMs: 120_000 });
      expect(again.code, again.stderr).toBe(0);
      const second = JSON.parse(again.stdout) as { writes: string[]; media: { fetched: number } };
      expect([second.media.fetched, second.writes]).toEqual([0, []]);
      const names = await readdir(join(dir, 'content/entries'));
      expect(names).toHaveLength(corpus.length);
      let matched = 0;
      for (const name of names) {
        const f = parseEntryFile(name, await readFile(join(dir, 'content/entries', name)));
        const source = byIdentifier.get(f.data.identifier!);
        expect(source, name).toBeDefined();
        expect(f.data.title).toBe(source!.title);
        expect(f.data.slug).toBe(source!.slug);
        expect(f.data.publish_at).toBe(source!.date);
        expect(name.startsWith(`${source!.date}-`)).toBe(true);
        expect(f.body).toMatch(/!\[Screenshot\]\(http:\/\/127\.0\.0\.1:\d+\/screenshots\//);
        matched++;
      }
      expect(matched).toBe(corpus.length);
    });

    it('build writes one page per entry, the index and the feed', async () => {
      const r = await runCli(['build'], { cwd: dir, env: { CHANGELOG_SITE_URL: 'https://changelog.example.com/' }, timeoutMs: 240_000 });
      expect(r.code, r.stderr).toBe(0);
      const pages = await readdir(join(dir, '_site/entries'));
      expect(pages).toHaveLength(corpus.length);
      expect(existsSync(join(dir, '_site/index.html'))).toBe(true);
      const feed = await readFile(join(dir, '_site/feed.xml'), 'utf8');
      expect(feed.match(/<entry>/g)).toHaveLength(corpus.length);
    });
  });

  describe('local -> push into an empty workspace', () => {
    let emu: RunningEmulator;
    let dir: string;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      const store = new EmulatorStore();
      store.addWorkspace({ name: 'Empty', tokens: ['push-token'] });
      // The service's 60 a minute on a 250 ms window: the push paces itself in seconds, not minutes.
      emu = await startEmulator({ port: 0, store, limits: { perMinute: 60, windowMs: 250, perDay: 1440 } });
      ({ dir, cleanup } = await tempDir());
      await writeCorpusEntries(dir, corpus);
    });
    afterAll(async () => {
      await emu.close();
      await cleanup();
    });

    it('creates exactly one remote entry per file and writes every identifier back', async () => {
      const r = await runCli(['--json', 'push'], {
        cwd: dir,
        // A site URL: bodies with site-relative links (`/guides/cli`) are sent absolute on it.
        env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'push-token', CHANGELOG_RATE_WINDOW_MS: '250', CHANGELOG_SITE_URL: 'https://box.github.io/changelog/' },
        timeoutMs: 240_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const ws = emu.store.workspaces[0]!;
      expect(ws.entries).toHaveLength(corpus.length);
      expect(new Set(ws.entries.map((e) => e.slug)).size).toBe(corpus.length);
      expect(emu.log.filter((l) => l.status === 429)).toHaveLength(0);
      const ids = new Set(ws.entries.map((e) => e.identifier));
      for (const name of await readdir(join(dir, 'content/entries'))) {
        const f = parseEntryFile(name, await readFile(join(dir, 'content/entries', name)));
        expect(ids.has(f.data.identifier!), name).toBe(true);
        ids.delete(f.data.identifier!);
      }
      expect(ids.size).toBe(0);
    });
  });
});
