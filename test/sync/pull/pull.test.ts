// Pull as a true mirror, against the emulator over HTTP in
// temporary directories. The web editor is simulated with store.updateEntry/deleteEntry/
// insertEntry. A pull that stops early has closed its reads when it rejects (a service that
// holds them, helpers/service/held-service.ts).
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { pull } from '../../../src/sync/pull/pull.js';
import type { PullResult } from '../../../src/sync/pull/pull-run.js';
import { remoteHash, type SyncState } from '../../../src/sync/store/state.js';
import { contentHash } from '../../../src/core/hash.js';
import { ChangelogClient } from '../../../src/service/client.js';
import { acquireLock } from '../../../src/sync/store/lock.js';
import type { EmulatorEntry } from '../../../src/emulator/store.js';
import { ageFiles, changedPaths, snapshot } from '../../helpers/site/snapshot.js';
import type { EmulatorFixture } from '../../helpers/service/emulator.js';
import { useMirror } from '../../helpers/sync/mirror.js';
import { runStoppedByWorkspace, startHeldService, watchReads, type HeldService, type StoppedJob } from '../../helpers/service/held-service.js';

let fx: EmulatorFixture;
let dir: string;
let contentDir: string;
let stateDir: string;

useMirror((mirror) => ({ fx, dir, contentDir, stateDir } = mirror));

const run = (o: { prune?: boolean; force?: boolean; dryRun?: boolean } = {}): Promise<PullResult> => pull({ client: fx.client(), contentDir, stateDir, ...o });
const read = (rel: string) => readFile(join(contentDir, rel), 'utf8');
const state = async (): Promise<SyncState> => JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8')) as SyncState;

function seed(): EmulatorEntry[] {
  return [
    fx.store.insertEntry(fx.ws, { title: 'Dark mode', slug: 'dark-mode', publish_at: '2026-01-02', content: '<p>Dark <strong>mode</strong> is here.</p>' }),
    fx.store.insertEntry(fx.ws, { title: 'Exports', slug: 'exports', publish_at: '2026-01-03', content: '<p>Faster exports.</p><ul><li>CSV</li><li>JSON</li></ul>' }),
    fx.store.insertEntry(fx.ws, { title: 'Draft', slug: 'draft', publish_at: '2026-01-04', status: 'draft', content: '<p>Not yet.</p>' }),
  ];
}

describe('the state', () => {
  it('records per identifier the file, the hash of the remote entry and of the file as written', async () => {
    const [a] = seed();
    const r = await run();
    expect(r.created).toHaveLength(3);
    const s = await state();
    expect(s.workspace).toBe(fx.ws.info.identifier);
    expect(Object.keys(s.entries).sort()).toEqual(fx.store.listEntries(fx.ws).map((e) => e.identifier).sort());
    const rec = s.entries[a!.identifier]!;
    expect(rec.file).toBe('entries/2026-01-02-dark-mode.md');
    expect(rec.localHash).toBe(contentHash(await read(rec.file)));
    const listed = (await fx.client().listEntries()).find((e) => e.identifier === a!.identifier)!;
    expect(rec.remoteHash).toBe(remoteHash(listed));
  });
});

describe('incremental pull', () => {
  it('with nothing changed remotely writes no file: every mtime and byte unchanged, state untouched', async () => {
    seed();
    fx.ws.tags.push({ name: 'API', slug: 'api', bg_color: '#000000', text_color: '#ffffff' });
    await run();
    await ageFiles(dir);
    const before = await snapshot(dir);
    expect([...before.keys()].sort()).toEqual(
      ['.changelog/state.json', 'content/_data/tags.json', 'content/_data/workspace.json', 'content/entries/2026-01-02-dark-mode.md', 'content/entries/2026-01-03-exports.md', 'content/entries/2026-01-04-draft.md'].sort(),
    );
    const r = await run();
    expect(r.writes).toEqual([]);
    expect(r.unchanged).toBe(3);
    expect([r.created, r.updated, r.renamed, r.restored, r.conflicts, r.localEdits, r.remoteGone].every((l) => l.length === 0)).toBe(true);
    expect(await snapshot(dir)).toEqual(before);
  });

  it('remote changed, local untouched: the file is rewritten, nothing else', async () => {
    const [a] = seed();
    await run();
    await ageFiles(dir);
    const before = await snapshot(dir);
    fx.store.updateEntry(fx.ws, a!.identifier, { content: '<p>Dark mode is <em>finally</em> here.</p>', title: 'Dark mode, finally' });
    const r = await run();
    expect(r.updated.map((i) => i.file)).toEqual(['entries/2026-01-02-dark-mode.md']);
    const f = parseEntryFile('x', await read('entries/2026-01-02-dark-mode.md'));
    expect(f.data.title).toBe('Dark mode, finally');
    expect(f.body.trim()).toBe('Dark mode is _finally_ here.');
    expect(changedPaths(before, await snapshot(dir))).toEqual(['.changelog/state.json', 'content/entries/2026-01-02-dark-mode.md']);
    expect((await state()).entries[a!.identifier]!.localHash).toBe(contentHash(await read('entries/2026-01-02-dark-mode.md')));
  });

  it('renames the file when the slug or the date changed', async () => {
    const [a, b] = seed();
    await run();
    fx.store.updateEntry(fx.ws, a!.identifier, { slug: 'dark-theme' });
    fx.store.updateEntry(fx.ws, b!.identifier, { publish_at: '2026-02-01T10:00:00.000000Z' });
    const r = await run();
    expect(r.renamed.map((i) => [i.from, i.file]).sort()).toEqual([
      ['entries/2026-01-02-dark-mode.md', 'entries/2026-01-02-dark-theme.md'],
      ['entries/2026-01-03-exports.md', 'entries/2026-02-01-exports.md'],
    ]);
    expect((await readdir(join(contentDir, 'entries'))).sort()).toEqual(['2026-01-02-dark-theme.md', '2026-01-04-draft.md', '2026-02-01-exports.md']);
    expect(parseEntryFile('x', await read('entries/2026-02-01-exports.md')).data.publish_at).toBe('2026-02-01');
    expect((await state()).entries[a!.identifier]!.file).toBe('entries/2026-01-02-dark-theme.md');
    expect((await run()).writes).toEqual([]);
  });

  it('keeps the writer\'s tags and own fields: not an edit, and kept when the remote changes', async () => {
    const [a] = seed();
    await run();
    const file = 'entries/2026-01-02-dark-mode.md';
    await writeFile(join(contentDir, file), (await read(file)).replace('---\n\n', 'tags: [UI, Launch]\nowner: design-team\n---\n\n'));
    const quiet = await run();
    expect(quiet.localEdits).toEqual([]);
    expect(quiet.writes).toEqual([]);
    fx.store.updateEntry(fx.ws, a!.identifier, { content: '<p>Now with contrast settings.</p>' });
    const r = await run();
    expect(r.conflicts).toEqual([]);
    expect(r.updated.map((i) => i.file)).toEqual([file]);
    const f = parseEntryFile('x', await read(file));
    expect(f.data.tags).toEqual(['UI', 'Launch']);
    expect(f.extra).toEqual({ owner: 'design-team' });
    expect(f.body.trim()).toBe('Now with contrast settings.');
  });

  it('local edited, remote unchanged: reported as "local edits cannot be pushed", never reverted', async () => {
    seed();
    await run();
    const file = 'entries/2026-01-03-exports.md';
    const edited = (await read(file)).replace('Faster exports.', 'Much faster exports.');
    await writeFile(join(contentDir, file), edited);
    const r = await run();
    expect(r.localEdits.map((i) => i.file)).toEqual([file]);
    expect(r.writes).toEqual([]);
    expect(await read(file)).toBe(edited);
  });

  it('a deleted file is restored while the remote entry is unchanged', async () => {
    seed();
    await run();
    const original = await read('entries/2026-01-04-draft.md');
    await rm(join(contentDir, 'entries/2026-01-04-draft.md'));
    const r = await run();
    expect(r.restored.map((i) => i.file)).toEqual(['entries/2026-01-04-draft.md']);
    expect(await read('entries/2026-01-04-draft.md')).toBe(original);
  });
});

describe('conflicts', () => {
  it('remote changed and local edited: local kept byte for byte, remote version in .changelog/conflicts/<id>.md', async () => {
    const [a] = seed();
    await run();
    const file = 'entries/2026-01-02-dark-mode.md';
    const mine = (await read(file)).replace('is here', 'is here, says the docs team');
    await writeFile(join(contentDir, file), mine);
    const stateBefore = await readFile(join(stateDir, 'state.json'), 'utf8');
    fx.store.updateEntry(fx.ws, a!.identifier, { content: '<p>Dark mode is here, says product.</p>' });
    const r = await run();
    expect(r.conflicts).toEqual([{ identifier: a!.identifier, file, title: 'Dark mode', conflictFile: `conflicts/${a!.identifier}.md` }]);
    expect(await read(file)).toBe(mine);
    const theirs = parseEntryFile('c', await readFile(join(stateDir, 'conflicts', `${a!.identifier}.md`)));
    expect(theirs.body.trim()).toBe('Dark mode is here, says product.');
    expect(theirs.data.identifier).toBe(a!.identifier);
    // The conflict stays until resolved; the state keeps the last pulled version.
    expect(await readFile(join(stateDir, 'state.json'), 'utf8')).toBe(stateBefore);
    await ageFiles(dir);
    const before = await snapshot(dir);
    const again = await run();
    expect(again.conflicts).toHaveLength(1);
    expect(await snapshot(dir)).toEqual(before);

    // Resolved by taking the remote version (here: deleting the local file): rewritten, copy removed.
    await rm(join(contentDir, file));
    const resolved = await run();
    expect(resolved.conflicts).toEqual([]);
    expect(parseEntryFile('x', await read(file)).body.trim()).toBe('Dark mode is here, says product.');
    expect(existsSync(join(stateDir, 'conflicts', `${a!.identifier}.md`))).toBe(false);
  });

  it('taking the remote version over by copying the conflict file resolves it without a write', async () => {
    const [a] = seed();
    await run();
    const file = 'entries/2026-01-02-dark-mode.md';
    await writeFile(join(contentDir, file), (await read(file)).replace('is here', 'was here'));
    fx.store.updateEntry(fx.ws, a!.identifier, { content: '<p>Changed remotely.</p>' });
    expect((await run()).conflicts).toHaveLength(1);
    await writeFile(join(contentDir, file), await readFile(join(stateDir, 'conflicts', `${a!.identifier}.md`)));
    const r = await run();
    expect(r.conflicts).toEqual([]);
    expect(r.writes).toEqual([`state:conflicts/${a!.identifier}.md`, 'state:state.json']);
    expect((await run()).writes).toEqual([]);
  });
});

describe('remote entries that are gone', () => {
  it('are reported; the file is removed only with --prune, and never when edited locally', async () => {
    const [a, b] = seed();
    await run();
    fx.store.deleteEntry(fx.ws, a!.identifier);
    fx.store.deleteEntry(fx.ws, b!.identifier);
    await writeFile(join(contentDir, 'entries/2026-01-03-exports.md'), (await read('entries/2026-01-03-exports.md')).replace('Faster', 'Slower'));

    const r = await run();
    expect(r.remoteGone.map((g) => [g.file, g.pruned, g.edited]).sort()).toEqual([
      ['entries/2026-01-02-dark-mode.md', false, false],
      ['entries/2026-01-03-exports.md', false, true],
    ]);
    expect(existsSync(join(contentDir, 'entries/2026-01-02-dark-mode.md'))).toBe(true);

    // Two of three at once is more than a tenth of the mirror: refused, nothing removed.
    await expect(run({ prune: true })).rejects.toMatchObject({ code: 'E_PRUNE_REFUSED', message: expect.stringContaining('2 of the mirror\'s 3 entries') as unknown });
    expect(existsSync(join(contentDir, 'entries/2026-01-02-dark-mode.md'))).toBe(true);

    const dry = await run({ prune: true, force: true, dryRun: true });
    expect(dry.remoteGone.find((g) => g.identifier === a!.identifier)!.pruned).toBe(true);
    expect(existsSync(join(contentDir, 'entries/2026-01-02-dark-mode.md'))).toBe(true);

    const pruned = await run({ prune: true, force: true });
    expect(pruned.remoteGone.map((g) => [g.file, g.pruned]).sort()).toEqual([
      ['entries/2026-01-02-dark-mode.md', true],
      ['entries/2026-01-03-exports.md', false],
    ]);
    expect(existsSync(join(contentDir, 'entries/2026-01-02-dark-mode.md'))).toBe(false);
    expect(existsSync(join(contentDir, 'entries/2026-01-03-exports.md'))).toBe(true);
    expect((await state()).entries[a!.identifier]).toBeUndefined();
  });
});

describe('--prune against an empty listing', () => {
  it('is refused for a non-empty mirror unless --force: every file kept', async () => {
    const entries = seed();
    await run();
    for (const e of entries) fx.store.deleteEntry(fx.ws, e.identifier);
    await expect(run({ prune: true })).rejects.toMatchObject({ code: 'E_PRUNE_REFUSED', message: expect.stringContaining('listed no entries') as unknown });
    expect(Object.keys((await state()).entries)).toHaveLength(entries.length);
    for (const rec of Object.values((await state()).entries)) expect(existsSync(join(contentDir, rec.file))).toBe(true);
    const forced = await run({ prune: true, force: true });
    expect(forced.remoteGone.every((g) => g.pruned || g.edited)).toBe(true);
  });
});

describe('a pull killed mid-write', () => {
  it('leaves temporary files that the next pull removes (those of a running process stay)', async () => {
    seed();
    await run();
    const dead = '.2026-01-02-dark-mode.md.999999999.1.tmp';
    const alive = `.2026-01-02-dark-mode.md.${process.pid}.7.tmp`;
    await writeFile(join(contentDir, 'entries', dead), 'half a fi');
    await writeFile(join(contentDir, 'entries', alive), 'being writ');
    const r = await run();
    expect(r.writes).toEqual([`entries/${dead}`]);
    expect(existsSync(join(contentDir, 'entries', dead))).toBe(false);
    expect(existsSync(join(contentDir, 'entries', alive))).toBe(true);
  });
});

describe('--dry-run', () => {
  it('plans creates, updates, renames, conflicts and prunes, and writes nothing', async () => {
    const [a, b, c] = seed();
    await run();
    fx.store.insertEntry(fx.ws, { title: 'New', slug: 'new', publish_at: '2026-03-01', content: '<p>n</p>' });
    fx.store.updateEntry(fx.ws, a!.identifier, { slug: 'dark-theme' });
    fx.store.updateEntry(fx.ws, b!.identifier, { content: '<p>changed</p>' });
    await writeFile(join(contentDir, 'entries/2026-01-03-exports.md'), 'edited locally\n');
    fx.store.deleteEntry(fx.ws, c!.identifier);
    await ageFiles(dir);
    const before = await snapshot(dir);
    const r = await run({ dryRun: true, prune: true, force: true });
    expect(r.created.map((i) => i.file)).toEqual(['entries/2026-03-01-new.md']);
    expect(r.renamed.map((i) => i.file)).toEqual(['entries/2026-01-02-dark-theme.md']);
    expect(r.conflicts.map((i) => i.file)).toEqual(['entries/2026-01-03-exports.md']);
    expect(r.remoteGone.map((i) => [i.file, i.pruned])).toEqual([['entries/2026-01-04-draft.md', true]]);
    expect(r.writes.length).toBeGreaterThan(0);
    expect(await snapshot(dir)).toEqual(before);
  });
});

describe('adoption and files pull did not write', () => {
  it('a local file that already carries a known identifier is adopted, not duplicated (a fresh clone without state)', async () => {
    const [a] = seed();
    await run();
    await rm(stateDir, { recursive: true });
    const r = await run();
    expect(r.created).toEqual([]);
    expect(r.adopted).toHaveLength(3);
    expect((await readdir(join(contentDir, 'entries'))).length).toBe(3);
    expect((await state()).entries[a!.identifier]!.remoteHash).not.toBeNull();
  });

  it('never overwrites a writer\'s new file that has the name a remote entry would take', async () => {
    await mkdir(join(contentDir, 'entries'), { recursive: true });
    const mine = '---\ntitle: My draft\n---\n\nMine.\n';
    await writeFile(join(contentDir, 'entries/2026-01-02-dark-mode.md'), mine);
    const [a] = seed();
    const r = await run();
    expect(await read('entries/2026-01-02-dark-mode.md')).toBe(mine);
    const theirs = r.created.find((i) => i.identifier === a!.identifier)!.file;
    expect(theirs).toMatch(/^entries\/2026-01-02-dark-mode-[0-9a-f]{8}\.md$/);
  });
});

describe('workspace binding', () => {
  it('records the workspace in content/_data/workspace.json and refuses a token for another workspace before writing', async () => {
    seed();
    await run();
    expect((JSON.parse(await read('_data/workspace.json')) as { identifier: string }).identifier).toBe(fx.ws.info.identifier);
    const other = fx.store.addWorkspace({ name: 'Other', tokens: ['other-token'] });
    fx.store.insertEntry(other, { title: 'Foreign', slug: 'foreign' });
    await ageFiles(dir);
    const before = await snapshot(dir);
    await expect(pull({ client: fx.client({ token: 'other-token' }), contentDir, stateDir })).rejects.toMatchObject({
      code: 'E_WORKSPACE_MISMATCH',
      message: expect.stringContaining('mirrors "Test Workspace"') as unknown,
    });
    expect(await snapshot(dir)).toEqual(before);
  });
});

describe('a pull that stops early', () => {
  let run: StoppedJob<unknown> | undefined;
  let service: HeldService | undefined;
  afterEach(async () => {
    await run?.close();
    await service?.close();
  });

  it('on a failed workspace read: rejects once the listing and the tags in flight are closed', async () => {
    run = await runStoppedByWorkspace((client) => pull({ client, contentDir, stateDir }));
    expect(run.outcome).toMatchObject({ status: 'rejected', reason: { code: 'E_AUTH' } });
    expect(run.ended).toEqual({ sent: ['getWorkspace', 'listEntries', 'listTags'], pending: [], inFlight: 0, booked: 3 });
    expect(await run.siblingsAnswered()).toEqual([false, false]);
  });

  it('refused by the lock: its reads, sent before, are closed when it rejects', async () => {
    service = await startHeldService(() => undefined); // holds every request
    const lock = await acquireLock(stateDir, 'push');
    const client = new ChangelogClient({ baseUrl: service.url, token: 't' });
    const watch = watchReads();
    try {
      await expect(pull({ client, contentDir, stateDir })).rejects.toMatchObject({ code: 'E_LOCKED' });
      expect(watch.reads).toHaveLength(3);
      expect(watch.pending()).toEqual([]);
      expect(client.budget.inFlight).toBe(0);
    } finally {
      watch.restore();
      await lock.release();
    }
    await client.close();
  });
});
