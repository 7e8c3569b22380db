// Push against the emulator over HTTP, in temporary directories: validation, slugs,
// answer shapes, reconciliation, adoption, write-back on the file's current content.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../../src/sync/recovery/journal.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { pull } from '../../../src/sync/pull/pull.js';
import { push } from '../../../src/sync/push/push.js';
import { loadState } from '../../../src/sync/store/state.js';
import { contentHash } from '../../../src/core/hash.js';
import type { EmulatorFixture } from '../../helpers/service/emulator.js';
import { entryNames, expectEachOnceAndIntact, pushSetup, writeEntries, writeEntry, type PushSetup } from '../../helpers/sync/entries.js';

let s: PushSetup;
let fx: EmulatorFixture;
let contentDir: string;
let stateDir: string;
beforeEach(async () => {
  s = await pushSetup();
  ({ fx, contentDir, stateDir } = s);
});
afterEach(() => s.close());
const posts = () => s.posts();
const lists = () => s.lists();
const fm = async (rel: string) => parseEntryFile(rel, await readFile(join(contentDir, rel))).data;

describe('validation before sending', () => {
  it('rejects each invalid file with file, field and fix; sends the valid ones', async () => {
    fx.store.insertEntry(fx.ws, { title: 'Taken on the service', slug: 'taken' });
    await writeEntry(contentDir, 'no-title', '---\npublish_at: 2026-01-01\n---\nno title\n');
    await writeEntry(contentDir, 'bad-date', '---\ntitle: Bad date\npublish_at: 2026-13-01\n---\n\nText.\n');
    await writeEntry(contentDir, 'bad-type', '---\ntitle: Bad type\nis_published: "yes"\n---\n\nText.\n');
    await writeEntry(contentDir, 'bad-tags', '---\ntitle: Bad tags\ntags: 5\n---\n\nText.\n');
    await writeEntry(contentDir, 'dup-1', '---\ntitle: One\nslug: same\n---\n\nText.\n');
    await writeEntry(contentDir, 'dup-2', '---\ntitle: Two\nslug: same\n---\n\nText.\n');
    await writeEntry(contentDir, 'remote', '---\ntitle: Something else\nslug: taken\n---\n\nText.\n');
    await writeEntry(contentDir, 'unsafe', '---\ntitle: Unsafe\nslug: ../etc\n---\n\nText.\n');
    await writeEntry(contentDir, 'fine', '---\ntitle: Fine\n---\nok\n');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => p.file)).toEqual(['entries/fine.md']);
    const by = Object.fromEntries(r.rejected.map((x) => [x.file, x]));
    expect(Object.keys(by).sort()).toEqual(
      ['bad-date', 'bad-tags', 'bad-type', 'dup-1', 'dup-2', 'no-title', 'remote', 'unsafe'].map((n) => `entries/${n}.md`),
    );
    expect(by['entries/no-title.md']).toMatchObject({ field: 'title' });
    expect(by['entries/no-title.md']!.reason).toContain('fix: add a line `title: "Your title"`');
    expect(by['entries/bad-date.md']).toMatchObject({ field: 'publish_at', line: 3 });
    expect(by['entries/bad-date.md']!.reason).toContain('publish_at: 2026-13-01 is not a date that exists (fix: write a real day, e.g. `publish_at: 2026-12-01`)');
    expect(by['entries/bad-type.md']!.reason).toContain('is_published: must be true or false');
    expect(by['entries/bad-tags.md']).toMatchObject({ field: 'tags' });
    expect(by['entries/dup-1.md']!.reason).toContain('slug: "same" is also used by entries/dup-2.md (fix: set a distinct `slug:`');
    expect(by['entries/remote.md']!.reason).toContain('already used by the remote entry "Taken on the service"');
    expect(by['entries/remote.md']!.reason).toContain('which no local file mirrors');
    expect(by['entries/unsafe.md']!.reason).toContain('not URL-safe');
    // Only the valid file was sent.
    expect(posts().map((p) => p.slug)).toEqual(['fine']);
  });

  it('--dry-run: the exact plan, oldest first, with request count and times; no mutating request, no write', async () => {
    await s.close();
    s = await pushSetup({ limits: { perMinute: 3, windowMs: 60_000 } });
    ({ fx, contentDir, stateDir } = s);
    const originals = await writeEntries(contentDir, 4);
    await writeEntry(contentDir, 'undated', '---\ntitle: Undated\n---\n\nText.\n');
    const before = await entryNames(contentDir);
    const client = fx.client();
    const r = await push({ client, contentDir, stateDir, dryRun: true });
    expect(r.plan.map((p) => p.slug)).toEqual(['entry-1-things', 'entry-2-things', 'entry-3-things', 'entry-4-things', 'undated']);
    expect(r.requests).toBe(6); // 5 POSTs + at most one reconciliation list
    // 2 requests used to plan; 3 a minute: one more now, then three a minute later, then one.
    const t = r.schedule.map((s) => Date.parse(s));
    expect(t).toHaveLength(5);
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(59_000);
    expect(t[4]! - t[1]!).toBeGreaterThanOrEqual(60_000);
    expect(fx.emu.log.map((l) => `${l.method} ${l.path}`)).toEqual(['GET /api/workspace', 'GET /api/entries']);
    expect(await entryNames(contentDir)).toEqual(before);
    for (const [rel, text] of originals) expect(await readFile(join(contentDir, rel), 'utf8')).toBe(text);
    await expect(readFile(join(stateDir, 'journal.json'))).rejects.toThrow();
  });
});

describe('every answer shape of POST /api/entry', () => {
  it.each([
    ['entry', 0],
    ['identifier', 0],
    ['success-only', 1],
    ['empty', 1],
  ] as const)('%s: every identifier found, with %i extra list request for all files', async (shape, extraLists) => {
    fx.emu.faults.createResponse = shape;
    const originals = await writeEntries(contentDir, 6);
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed).toHaveLength(6);
    expect(posts()).toHaveLength(6);
    expect(lists()).toHaveLength(1 + extraLists);
    await expectEachOnceAndIntact(fx, contentDir, originals);
    // The status written back is the service's (or what the spec says creation gives).
    for (const rel of originals.keys()) expect((await fm(rel)).status).toBe('published');
  });
});

describe('slugs', () => {
  it('same titles without slug: the oldest keeps the title slug, the others get their date; stable on later runs', async () => {
    await writeEntry(contentDir, 'b', '---\ntitle: Weekly fixes\npublish_at: 2026-01-12\n---\n\nText.\n');
    await writeEntry(contentDir, 'a', '---\ntitle: Weekly fixes\npublish_at: 2026-01-05\n---\n\nText.\n');
    await writeEntry(contentDir, '2026-01-19-weekly-fixes', '---\ntitle: Weekly fixes\n---\n\nText.\n'); // dated by its name
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.plan.map((p) => [p.file, p.slug])).toEqual([
      ['entries/a.md', 'weekly-fixes'],
      ['entries/b.md', 'weekly-fixes-2026-01-12'],
      ['entries/2026-01-19-weekly-fixes.md', 'weekly-fixes-2026-01-19'],
    ]);
    expect(r.pushed).toHaveLength(3);
    expect((await fm('entries/b.md')).slug).toBe('weekly-fixes-2026-01-12');

    // A later, older file with the same title: the base is taken by a pushed file.
    await writeEntry(contentDir, 'z', '---\ntitle: Weekly fixes\npublish_at: 2025-12-29\n---\n\nText.\n');
    await writeEntry(contentDir, 'undated', '---\ntitle: Weekly fixes\n---\n\nText.\n');
    const again = await push({ client: fx.client(), contentDir, stateDir });
    expect(again.pushed.map((p) => p.slug)).toEqual(['weekly-fixes-2025-12-29']);
    expect(again.rejected.map((x) => x.file)).toEqual(['entries/undated.md']);
    expect(again.rejected[0]!.reason).toContain('no date to tell them apart (fix: set `slug:`');
    expect(fx.store.listEntries(fx.ws)).toHaveLength(4);
  });

  it('a title slug taken by a remote entry a local file mirrors: the new file gets its date', async () => {
    const old = fx.store.insertEntry(fx.ws, { title: 'Weekly fixes', slug: 'weekly-fixes', publish_at: '2025-06-01' });
    await writeEntry(contentDir, 'mirrored', `---\ntitle: Weekly fixes\nslug: weekly-fixes\nidentifier: ${old.identifier}\n---\n\nText.\n`);
    await writeEntry(contentDir, 'new', '---\ntitle: Weekly fixes\npublish_at: 2026-02-02\n---\n\nText.\n');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => p.slug)).toEqual(['weekly-fixes-2026-02-02']);
  });
});

describe('a created entry whose write-back and journal were both lost', () => {
  async function lostBoth(text: string): Promise<{ rel: string; identifier: string }> {
    const rel = await writeEntry(contentDir, '2026-03-01-weekly', text);
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed).toHaveLength(1);
    // The CI runner died before committing: content and .changelog/ as they were.
    await writeFile(join(contentDir, rel), text);
    await rm(stateDir, { recursive: true, force: true });
    return { rel, identifier: r.pushed[0]!.identifier };
  }

  it('same slug, title and date on the service, mirrored by no file: adopted, not sent again', async () => {
    const text = '---\ntitle: Weekly fixes\npublish_at: 2026-03-01\n---\n\nFixed things.\n';
    const { rel, identifier } = await lostBoth(text);
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => [p.how, p.identifier])).toEqual([['adopted', identifier]]);
    expect(posts()).toHaveLength(1);
    expect((await fm(rel)).identifier).toBe(identifier);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(1);
  });

  it('same slug but another title (the writer retitled it meanwhile): rejected with both ways out, not sent', async () => {
    const text = '---\ntitle: Weekly fixes\npublish_at: 2026-03-01\nslug: weekly\n---\n\nText.\n';
    const { rel, identifier } = await lostBoth(text);
    await writeFile(join(contentDir, rel), text.replace('Weekly fixes', 'Weekly fixes and more'));
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed).toEqual([]);
    expect(r.rejected[0]!.reason).toContain(`slug: "weekly" is already used by the remote entry "Weekly fixes" (${identifier}), which no local file mirrors, and its title is "Weekly fixes"`);
    expect(r.rejected[0]!.reason).toContain(`add \`identifier: ${identifier}\``);
    expect(posts()).toHaveLength(1);
  });

  it('same slug and title but another date: rejected, not sent', async () => {
    const { rel } = await lostBoth('---\ntitle: Weekly fixes\npublish_at: 2026-03-01\n---\n\nText.\n');
    await writeFile(join(contentDir, rel), '---\ntitle: Weekly fixes\npublish_at: 2026-03-08\n---\n\nText.\n');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.rejected[0]!.reason).toContain('it is dated 2026-03-01, this file 2026-03-08');
    expect(posts()).toHaveLength(1);
  });
});

describe('journal records of an earlier run', () => {
  async function journaled(rel: string, slug: string, extra: Partial<Parameters<Journal['put']>[0]> = {}) {
    const journal = await Journal.open(stateDir);
    await journal.put({ file: rel, slug, title: 'T', startedAt: new Date(Date.now() - 10_000).toISOString(), inDoubtUntil: new Date(Date.now() - 5_000).toISOString(), state: 'sending', ...extra });
  }

  it('created on the service: found by slug with the one list call, written back, not sent', async () => {
    const rel = await writeEntry(contentDir, 'x', '---\ntitle: X\n---\n\nText.\n');
    const created = fx.store.createEntry(fx.ws, { title: 'X', slug: 'x' });
    await journaled(rel, 'x');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => [p.how, p.identifier])).toEqual([['reconciled', created.identifier]]);
    expect(posts()).toHaveLength(0);
    expect(lists()).toHaveLength(1);
    expect((await Journal.open(stateDir)).list()).toEqual([]);
  });

  it('not on the service and past its in-doubt time: sent again, once', async () => {
    const rel = await writeEntry(contentDir, 'x', '---\ntitle: X\n---\n\nText.\n');
    await journaled(rel, 'x');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => p.how)).toEqual(['created']);
    expect(posts()).toHaveLength(1);
  });

  it('in doubt (the service may still be working on it): waits, looks again, finds it, sends nothing', async () => {
    const rel = await writeEntry(contentDir, 'x', '---\ntitle: X\n---\n\nText.\n');
    await journaled(rel, 'x', { inDoubtUntil: new Date(Date.now() + 60_000).toISOString() });
    const waits: number[] = [];
    const r = await push({
      client: fx.client(),
      contentDir,
      stateDir,
      // While push waits, the service finishes the earlier POST.
      sleep: (ms) => {
        waits.push(ms);
        fx.store.createEntry(fx.ws, { title: 'X', slug: 'x' });
        return Promise.resolve();
      },
    });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(50_000);
    expect(r.pushed.map((p) => p.how)).toEqual(['reconciled']);
    expect(posts()).toHaveLength(0);
    expect(lists()).toHaveLength(2);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(1);
  });

  it('created with a known identifier: written back without asking, even if the list lags', async () => {
    const rel = await writeEntry(contentDir, 'x', '---\ntitle: X\n---\n\nText.\n');
    await journaled(rel, 'x', { state: 'created', identifier: 'id-from-an-answer', status: 'draft' });
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => p.identifier)).toEqual(['id-from-an-answer']);
    expect(posts()).toHaveLength(0);
    expect((await fm(rel)).identifier).toBe('id-from-an-answer');
  });
});

describe('the writer edits during a push', () => {
  it('an edit that lands while the POST is in flight is kept; only the new lines are added', async () => {
    fx.emu.faults.latencyMs = 150;
    const rel = await writeEntry(contentDir, 'x', '---\ntitle: X\nis_published: true\n---\n\nFirst draft.\n');
    const edited = '---\ntitle: X\nis_published: true\nteam_note: reviewed\n---\n\nSecond draft, saved during the push.\n';
    fx.emu.events.on('request', (r) => {
      if (r.method === 'POST') void writeFile(join(contentDir, rel), edited);
    });
    const r = await push({ client: fx.client(), contentDir, stateDir });
    const text = await readFile(join(contentDir, rel), 'utf8');
    expect(text).toBe(edited.replace('team_note: reviewed\n', `team_note: reviewed\nslug: x\nstatus: published\nidentifier: ${r.pushed[0]!.identifier}\n`));
  });

  it('an edit that breaks the frontmatter: the identifier is kept in the journal, written once the file is fixed, never sent again', async () => {
    fx.emu.faults.latencyMs = 100;
    const rel = await writeEntry(contentDir, 'x', '---\ntitle: X\n---\n\nBody.\n');
    fx.emu.events.on('request', (r) => {
      if (r.method === 'POST') void writeFile(join(contentDir, rel), 'title: X\n\nno frontmatter any more\n');
    });
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed).toEqual([]);
    const identifier = fx.store.listEntries(fx.ws)[0]!.identifier;
    expect(r.pending[0]!.reason).toContain(`created on the service as ${identifier}, but the identifier could not be written to the file`);
    expect((await Journal.open(stateDir)).list()).toMatchObject([{ file: rel, state: 'created', identifier }]);

    fx.emu.events.removeAllListeners('request');
    await writeFile(join(contentDir, rel), '---\ntitle: X\n---\n\nFixed.\n');
    const again = await push({ client: fx.client(), contentDir, stateDir });
    expect(again.pushed.map((p) => [p.how, p.identifier])).toEqual([['reconciled', identifier]]);
    expect(posts()).toHaveLength(1);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(1);
  });
});

describe('the state push records', () => {
  it('hashes the written-back file as pull does (CRLF read as LF, and what mirrors the service), so the adopting pull changes no hash', async () => {
    await writeEntry(contentDir, 'crlf', '---\r\ntitle: Line ends\r\npublish_at: 2026-02-01\r\n---\r\n\r\nBody.\r\n');
    await writeEntry(contentDir, 'lf', '---\ntitle: Tagged\npublish_at: 2026-02-02\ntags: [API]\n---\n\nBody.\n');
    const r = await push({ client: fx.client(), contentDir, stateDir });
    expect(r.pushed.map((p) => p.file).sort()).toEqual(['entries/crlf.md', 'entries/lf.md']);
    const pushed = await loadState(stateDir);
    for (const p of r.pushed) expect(pushed.entries[p.identifier]!.localHash).toBe(contentHash(await readFile(join(contentDir, p.file))));
    // The next pull adopts both (records their remote hash) and computes the file hashes its own way: the same.
    const first = await pull({ client: fx.client(), contentDir, stateDir });
    expect(first.adopted).toHaveLength(2);
    const pulled = await loadState(stateDir);
    for (const p of r.pushed) {
      const { localHash, syncedHash } = pulled.entries[p.identifier]!;
      expect(pushed.entries[p.identifier]).toMatchObject({ localHash, syncedHash });
      expect(syncedHash).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
