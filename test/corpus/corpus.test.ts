// The real changelog end to end: 764 entries remote -> pull -> build, and local -> push.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { EmulatorStore } from '../../src/emulator/store.js';
import { parseEntryFile } from '../../src/mirror/entry-file.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { CORPUS_DIR, loadCorpus, writeCorpusEntries, type CorpusEntry } from './corpus.js';

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
    beforeAll(async () => {
      // Rendered by markdown-it: a different renderer than push's marked.
      const md = new MarkdownIt({ html: true, linkify: false });
      const store = new EmulatorStore();
      const ws = store.addWorkspace({ name: 'Box Developer Changelog', tokens: ['corpus-token'] });
      for (const e of corpus) {
        const created = store.insertEntry(ws, { title: e.title, slug: e.slug, publish_at: e.date, status: 'published', content: md.render(e.body) });
        byIdentifier.set(created.identifier, e);
      }
      emu = await startEmulator({ port: 0, store });
      ({ dir, cleanup } = await tempDir());
    });
    afterAll(async () => {
      await emu.close();
      await cleanup();
    });

    it('pull writes one file per entry with matching title, slug and date', async () => {
      const r = await runCli(['--json', 'pull'], { cwd: dir, env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'corpus-token' }, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { created: unknown[] }).created).toHaveLength(corpus.length);
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
        // A site URL: bodies with site-relative links (`/guides/cli`) are sent absolute on it (issue 24).
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
