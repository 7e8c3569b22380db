// The data thread (compiled code only: this file loads it from dist/, which npm test builds
// first) reads and parses the newer half of the entry files, and renders bodies, exactly as
// the build's own thread does: the same files, hashes, fields, bodies and errors, whichever
// thread read them; a thread that stopped leaves its half to this one.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEntryFiles } from '../../../src/entry/entry-files.js';
import { renderBody } from '../../../src/site/render/sanitize.js';
import { stringify } from 'yaml';
import { useTempDir } from '../../helpers/cli.js';
import { FIXTURE_CORPUS_DIR, readCorpus } from '../../helpers/corpus-read.js';

const { startDataThread, readEntryFilesBeside } = (await import(new URL('../../../dist/site/data/data-thread.js', import.meta.url).href)) as typeof import('../../../src/site/data/data-thread.js');
const { startDataThread: fromSources } = await import('../../../src/site/data/data-thread.js');


describe('the data thread', () => {
  let dir = '';
  useTempDir((d) => (dir = d));

  /** Real entries, then an invalid field, a YAML error and a file that is not UTF-8, in the newer half. */
  async function writeEntries(): Promise<string[]> {
    await mkdir(join(dir, 'entries'), { recursive: true });
    // The corpus's entries as entry files, their tags from `applies_to`.
    const corpus = readCorpus(FIXTURE_CORPUS_DIR);
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    for (const e of corpus) {
      const tags = Array.isArray(e.frontmatter.applies_to) ? e.frontmatter.applies_to.map(String) : [];
      const fm = stringify({ title: e.title, slug: e.slug, publish_at: e.date, status: 'published', tags }, { lineWidth: 0 });
      await writeFile(join(dir, 'entries', `${e.date}-${e.slug}.md`), `---\n${fm}---\n\n${e.body}\n`);
    }
    await writeFile(join(dir, 'entries/2099-01-01-bad-date.md'), '---\ntitle: Bad date\npublish_at: someday\n---\nBody\n');
    await writeFile(join(dir, 'entries/2099-01-02-bad-yaml.md'), '---\ntitle: "unclosed\nslug: x\n---\nBody\n');
    await writeFile(join(dir, 'entries/2099-01-03-latin1.md'), Buffer.from('---\ntitle: Caf\xe9\n---\nBody\n', 'latin1'));
    return (await readdir(join(dir, 'entries'))).sort().map((n) => `entries/${n}`);
  }

  it('reads and parses the newer half as this thread does, errors included', async () => {
    const rels = await writeEntries();
    const here = await readEntryFiles(dir, rels);
    const thread = startDataThread();
    expect(thread).toBeDefined();
    try {
      const shared = await readEntryFilesBeside(dir, rels, thread);
      expect(shared.map((f) => f.rel)).toEqual(rels);
      // Plain data compared (dist/'s classes are not src/'s), errors by their message and fields.
      const plain = (files: typeof here) =>
        files.map((f) => ({ rel: f.rel, abs: f.abs, hash: f.hash, raw: f.raw.toString('base64'), entry: f.entry && (JSON.parse(JSON.stringify(f.entry)) as unknown), error: f.error && { code: f.error.code, message: f.error.message, line: f.error.line } }));
      expect(plain(shared)).toEqual(plain(here));
      expect(shared.filter((f) => f.error).map((f) => f.rel)).toEqual(['entries/2099-01-01-bad-date.md', 'entries/2099-01-02-bad-yaml.md', 'entries/2099-01-03-latin1.md']);
      expect(shared.filter((f) => f.error).every((f) => f.error?.constructor.name === here.find((h) => h.rel === f.rel)?.error?.constructor.name)).toBe(true);
      expect(Buffer.isBuffer(shared.at(-4)?.raw)).toBe(true);
      // Most of the corpus parses: the thread's half is not all errors.
      expect(shared.slice(shared.length / 2).filter((f) => f.entry).length).toBeGreaterThan(20);
      expect(shared.slice(0, shared.length / 2).every((f) => f.entry)).toBe(true);
    } finally {
      await thread?.close();
    }
  });

  it('renders bodies as renderBody does', async () => {
    const thread = startDataThread()!;
    try {
      const bodies = ['# Title\n\nSome *text* <script>alert(1)</script>', '```js\nconst a = 1;\n```\n', '| a | b |\n|---|---|\n| 1 | 2 |\n'];
      expect(await thread.render(bodies)).toEqual(bodies.map((b) => renderBody(b)));
    } finally {
      await thread.close();
    }
  });

  it('reads here the half of a thread that stopped', async () => {
    const rels = await writeEntries();
    const thread = startDataThread()!;
    await thread.close();
    await expect(thread.parse(dir, rels)).rejects.toThrow(/stopped/);
    const shared = await readEntryFilesBeside(dir, rels, thread);
    expect(shared.map((f) => [f.rel, f.hash, f.error?.message])).toEqual((await readEntryFiles(dir, rels)).map((f) => [f.rel, f.hash, f.error?.message]));
  });

  it('no data thread from the TypeScript sources (no compiled worker to start)', () => {
    expect(fromSources()).toBeUndefined();
  });
});
