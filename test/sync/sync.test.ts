// pull and push against the emulator over HTTP, in temporary directories.
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pull } from '../../src/sync/pull/pull.js';
import { push } from '../../src/sync/push/push.js';
import { parseEntryFile } from '../../src/entry/entry-file.js';
import type { EmulatorFixture } from '../helpers/service/emulator.js';
import { useMirror } from '../helpers/sync/mirror.js';

let fx: EmulatorFixture;
let contentDir: string;
let stateDir: string;

useMirror((mirror) => ({ fx, contentDir, stateDir } = mirror));

async function files(): Promise<string[]> {
  return (await readdir(join(contentDir, 'entries')).catch(() => [])).sort();
}

describe('pull', () => {
  it('mirrors entries, tags and workspace; a second pull writes nothing', async () => {
    fx.ws.tags.push({ name: 'API', slug: 'api', bg_color: '#000000', text_color: '#ffffff' });
    fx.store.insertEntry(fx.ws, { title: 'First: "quoted"', slug: 'first', publish_at: '2026-01-02', content: '<h2>Hi</h2><p>Some <strong>bold</strong> <a href="https://x.example">link</a>.</p>' });
    fx.store.insertEntry(fx.ws, { title: 'Blocks', slug: 'blocks', publish_at: '2026-01-03', content: { blocks: [{ type: 'header', data: { text: 'Head', level: 2 } }, { type: 'list', data: { style: 'ordered', items: ['one', 'two'] } }] } });
    const client = fx.client();
    const r = await pull({ client, contentDir, stateDir });
    expect(r.created.map((c) => c.file).sort()).toEqual(['entries/2026-01-02-first.md', 'entries/2026-01-03-blocks.md']);
    const first = parseEntryFile('f', await readFile(join(contentDir, 'entries/2026-01-02-first.md')));
    expect(first.data).toMatchObject({ title: 'First: "quoted"', slug: 'first', publish_at: '2026-01-02', status: 'published', identifier: expect.any(String) as unknown });
    expect(first.body).toContain('## Hi');
    expect(first.body).toContain('**bold** [link](https://x.example)');
    expect(await readFile(join(contentDir, 'entries/2026-01-03-blocks.md'), 'utf8')).toContain('1.  one');
    expect(JSON.parse(await readFile(join(contentDir, '_data/tags.json'), 'utf8'))).toEqual([{ name: 'API', slug: 'api', bg_color: '#000000', text_color: '#ffffff' }]);
    expect((JSON.parse(await readFile(join(contentDir, '_data/workspace.json'), 'utf8')) as { identifier: string }).identifier).toBe(fx.ws.info.identifier);

    const before = await stat(join(contentDir, 'entries/2026-01-02-first.md'));
    const again = await pull({ client, contentDir, stateDir });
    expect(again.writes).toEqual([]);
    expect(again.unchanged).toBe(2);
    expect((await stat(join(contentDir, 'entries/2026-01-02-first.md'))).mtimeMs).toBe(before.mtimeMs);
  });

  it('refuses a token for another workspace', async () => {
    fx.store.addWorkspace({ name: 'Other', tokens: ['other'] });
    await pull({ client: fx.client(), contentDir, stateDir });
    await expect(pull({ client: fx.client({ token: 'other' }), contentDir, stateDir })).rejects.toMatchObject({ code: 'E_WORKSPACE_MISMATCH' });
  });
});

describe('push', () => {
  it('sends new files with an explicit slug and writes identifier and status back', async () => {
    await mkdir(join(contentDir, 'entries'), { recursive: true });
    const original = '---\ntitle: "New export API"\npublish_at: 2026-01-05\nis_published: true\ntags: [API]\n---\n\nWe added **exports**.\n\n- one\n- two\n';
    await writeFile(join(contentDir, 'entries/2026-01-05-new-export-api.md'), original);
    await writeFile(join(contentDir, 'entries/2026-01-01-older.md'), '---\ntitle: Older\npublish_at: 2026-01-01\n---\nx\n');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => p.file)).toEqual(['entries/2026-01-01-older.md', 'entries/2026-01-05-new-export-api.md']);
    const remote = fx.store.listEntries(fx.ws);
    expect(remote.map((e) => [e.slug, e.status])).toEqual([
      ['new-export-api', 'published'],
      ['older', 'draft'],
    ]);
    expect(remote[0]!.content).toContain('<strong>exports</strong>');
    const text = await readFile(join(contentDir, 'entries/2026-01-05-new-export-api.md'), 'utf8');
    expect(text).toBe(original.replace('tags: [API]\n', `tags: [API]\nslug: new-export-api\nstatus: published\nidentifier: ${remote[0]!.identifier}\n`));

    // Pushing again sends nothing; pulling adopts the pushed files without rewriting them.
    const posts = fx.emu.log.filter((l) => l.method === 'POST').length;
    expect((await push({ client: fx.client(), contentDir, stateDir })).pushed).toEqual([]);
    expect(fx.emu.log.filter((l) => l.method === 'POST').length).toBe(posts);
    const pulled = await pull({ client: fx.client(), contentDir, stateDir });
    expect(pulled.adopted).toHaveLength(2);
    expect(pulled.created).toHaveLength(0);
    expect(await readFile(join(contentDir, 'entries/2026-01-05-new-export-api.md'), 'utf8')).toBe(text);
  });

  it('rejects invalid files with file, field and fix, and sends the valid ones', async () => {
    await mkdir(join(contentDir, 'entries'), { recursive: true });
    fx.store.insertEntry(fx.ws, { title: 'Taken', slug: 'taken' });
    await writeFile(join(contentDir, 'entries/a.md'), '---\npublish_at: 2026-01-01\n---\nno title\n');
    await writeFile(join(contentDir, 'entries/b.md'), '---\ntitle: Same\nslug: same\n---\n\nText.\n');
    await writeFile(join(contentDir, 'entries/c.md'), '---\ntitle: Also same\nslug: same\n---\n\nText.\n');
    await writeFile(join(contentDir, 'entries/d.md'), '---\ntitle: Not the taken one\nslug: taken\n---\n\nText.\n');
    await writeFile(join(contentDir, 'entries/e.md'), '---\ntitle: Fine\n---\nok\n');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => p.file)).toEqual(['entries/e.md']);
    const reasons = r.rejected.map((x) => `${x.file} ${x.field}`).sort();
    expect(reasons).toEqual(['entries/a.md title', 'entries/b.md slug', 'entries/c.md slug', 'entries/d.md slug']);
    expect(r.rejected.find((x) => x.file === 'entries/d.md')!.reason).toContain('already used by the remote entry "Taken"');
  });

  it('--dry-run sends nothing and writes nothing', async () => {
    await mkdir(join(contentDir, 'entries'), { recursive: true });
    await writeFile(join(contentDir, 'entries/e.md'), '---\ntitle: Fine\n---\nok\n');
    const r = await push({ client: fx.client(), contentDir, stateDir, dryRun: true });
    expect(r.plan.map((p) => p.slug)).toEqual(['fine']);
    expect(r.requests).toBe(2);
    expect(fx.emu.log.filter((l) => l.method !== 'GET')).toEqual([]);
    expect(await readFile(join(contentDir, 'entries/e.md'), 'utf8')).toBe('---\ntitle: Fine\n---\nok\n');
    expect(await files()).toEqual(['e.md']);
  });

  it('a lost response is reconciled by slug: no duplicate', async () => {
    fx.emu.faults.dropAfterCommitEvery = 1;
    await mkdir(join(contentDir, 'entries'), { recursive: true });
    for (const n of [1, 2, 3]) await writeFile(join(contentDir, `entries/e${n}.md`), `---\ntitle: Entry ${n}\n---\nbody\n`);
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.every((p) => p.reconciled)).toBe(true);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(3);
    for (const n of [1, 2, 3]) expect(parseEntryFile('x', await readFile(join(contentDir, `entries/e${n}.md`))).data.identifier).toBeDefined();
  });
});
