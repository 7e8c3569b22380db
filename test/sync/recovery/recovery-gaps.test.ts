// Gaps in recovery before pull (recovery.ts): entries a local file created must be bound
// to that file even when the file is refused by push today, or unparseable for a run;
// never mirrored as a second file, never sent again. The commands run in the test's process
// (helpers/process/command.ts); a push killed at a failpoint is the real CLI.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { syncCommand } from '../../../src/cli/commands/sync.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { seedStore, startWorld, type World } from '../../helpers/sync/sync-world.js';

interface SyncJson {
  pull: { created: unknown[]; bound: Array<{ how: string; file: string; identifier: string }>; problems: Array<{ file: string }> };
  push: { pushed: unknown[] };
}

describe('recovery before pull', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let world: World;
  beforeEach(async () => {
    world = await startWorld(seedStore(2), dir);
    const pulled = await world.run((config, reporter) => pullCommand(config, reporter));
    expect(pulled.code, pulled.stderr).toBe(0);
  });
  afterEach(() => world.close());
  const entryNames = async () => (await readdir(join(world.contentDir, 'entries'))).filter((n) => n.endsWith('.md')).sort();

  it('adopts a lost entry into a file push refuses (empty body): bound, nothing mirrored, nothing sent', async () => {
    const rel = 'entries/2026-03-02-empty.md';
    // The writer's file was pushed, its identifier lost with the commit-back; since then its body was emptied.
    await writeFile(join(world.contentDir, rel), '---\ntitle: "Empty entry"\npublish_at: 2026-03-02\n---\n\n');
    world.store.insertEntry(world.store.workspaces[0]!, { identifier: 'lost-1', title: 'Empty entry', slug: 'empty-entry', publish_at: '2026-03-02', content: '<p>Was here.</p>' });
    const before = await entryNames();

    const r = await world.run((config, reporter) => syncCommand(config, reporter, { skipBuild: true }), { json: true });
    const out = JSON.parse(r.stdout) as SyncJson;
    expect(out.pull.created).toEqual([]);
    expect(out.pull.bound.map((b) => [b.how, b.file, b.identifier])).toEqual([['adopted', rel, 'lost-1']]);
    expect(out.push.pushed).toEqual([]);
    expect(parseEntryFile(rel, await readFile(join(world.contentDir, rel))).data.identifier).toBe('lost-1');
    expect(await entryNames()).toEqual(before);
    expect(world.store.listEntries(world.ws).filter((e) => e.title === 'Empty entry')).toHaveLength(1);
  });


  it('a journal record whose file does not parse: the entry is held (not mirrored) until the file is fixed, then bound; sent once', async () => {
    const rel = 'entries/2026-03-03-journal.md';
    const good = '---\ntitle: "Journal entry"\npublish_at: 2026-03-03\n---\n\nBody of the entry.\n';
    await writeFile(join(world.contentDir, rel), good);
    const killed = await world.cli(['push'], 'push:after-post:1');
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect((JSON.parse(await readFile(join(dir, '.changelog/journal.json'), 'utf8')) as { records: unknown[] }).records).toHaveLength(1);
    expect(world.store.listEntries(world.ws).filter((e) => e.title === 'Journal entry')).toHaveLength(1);
    // A YAML slip: the file no longer parses.
    await writeFile(join(world.contentDir, rel), good.replace('title: "Journal entry"', 'title: "Journal entry'));
    const before = await entryNames();

    const held = await world.run((config, reporter) => syncCommand(config, reporter, { skipBuild: true }), { json: true });
    const out = JSON.parse(held.stdout) as SyncJson;
    expect(out.pull.created).toEqual([]);
    expect(await entryNames()).toEqual(before);
    // Recovery's note reaches the writer.
    const pulled = await world.run((config, reporter) => pullCommand(config, reporter));
    expect(pulled.stdout).toMatch(new RegExp(`note: ${rel}: a POST of an earlier push created \\S+ from this file.*not mirrored`));
    expect(await entryNames()).toEqual(before);

    await writeFile(join(world.contentDir, rel), good);
    const fixed = await world.run((config, reporter) => syncCommand(config, reporter, { skipBuild: true }), { json: true });
    expect(fixed.code, fixed.stderr).toBe(0);
    const after = JSON.parse(fixed.stdout) as SyncJson;
    expect(after.pull.created).toEqual([]);
    expect(after.push.pushed).toEqual([]);
    const mine = world.store.listEntries(world.ws).filter((e) => e.title === 'Journal entry');
    expect(mine).toHaveLength(1);
    expect(parseEntryFile(rel, await readFile(join(world.contentDir, rel))).data.identifier).toBe(mine[0]!.identifier);
    expect(await entryNames()).toEqual(before);
  });


  it('a file whose identifier is written but which no longer parses: pull does not mirror its entry a second time, and reports the file', async () => {
    const rel = 'entries/2026-03-04-unreadable.md';
    await writeFile(join(world.contentDir, rel), '---\ntitle: "Unreadable later"\npublish_at: 2026-03-04\n---\n\nBody.\n');
    // Pushed and written back, the state never saved: no state knows the identifier.
    const killed = await world.cli(['push'], 'push:before-state-save');
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const text = await readFile(join(world.contentDir, rel), 'utf8');
    const id = parseEntryFile(rel, text).data.identifier!;
    expect(id).toBeTruthy();
    await writeFile(join(world.contentDir, rel), text.replace('title: "Unreadable later"', 'title: "Unreadable later'));
    const before = await entryNames();

    const r = await world.run((config, reporter) => pullCommand(config, reporter), { json: true });
    const out = JSON.parse(r.stdout) as SyncJson['pull'];
    expect(out.created).toEqual([]);
    expect(await entryNames()).toEqual(before);
    const problem = out.problems.find((p) => p.file === rel) as { file: string; message: string } | undefined;
    expect(problem?.message).toContain(id);
    expect(world.store.listEntries(world.ws).filter((e) => e.identifier === id)).toHaveLength(1);
  });

  it('a new file never takes the slug of an entry mirrored in a file that does not parse: the slug rule skips it, nothing is renamed by the service', async () => {
    const mirror = (await entryNames()).find((n) => n.includes('remote-change-1'))!;
    const text = await readFile(join(world.contentDir, 'entries', mirror), 'utf8');
    expect(text).toMatch(/^slug: remote-change-1$/m);
    // A YAML slip in the mirror file: it no longer parses, it still carries its entry.
    await writeFile(join(world.contentDir, 'entries', mirror), text.replace(/^title: .*$/m, 'title: "Remote change 1'));
    const rel = 'entries/2026-03-05-again.md';
    await writeFile(join(world.contentDir, rel), '---\ntitle: "Remote change 1"\npublish_at: 2026-03-05\n---\n\nA second entry of that name.\n');

    const r = await world.run((config, reporter) => pushCommand(config, reporter), { json: true });
    expect(r.code, r.stderr).toBe(0);
    const sent = world.store.listEntries(world.ws).filter((e) => e.title === 'Remote change 1');
    expect(sent.map((e) => e.slug).sort()).toEqual(['remote-change-1', 'remote-change-1-2026-03-05']);
    const written = parseEntryFile(rel, await readFile(join(world.contentDir, rel)));
    expect(written.data.identifier).toBe(sent.find((e) => e.slug !== 'remote-change-1')!.identifier);
  });

  it('a slug the service gave to a mirrored entry since the last pull: the new file is refused, naming the mirror file; nothing sent', async () => {
    const mirror = (await entryNames()).find((n) => n.includes('remote-change-2'))!;
    world.store.updateEntry(world.ws, 'remote-0002', { slug: 'renamed-two' });
    const rel = 'entries/2026-03-06-renamed.md';
    await writeFile(join(world.contentDir, rel), '---\ntitle: "Another entry"\nslug: renamed-two\npublish_at: 2026-03-06\n---\n\nBody.\n');
    const count = world.store.listEntries(world.ws).length;

    const r = await world.run((config, reporter) => pushCommand(config, reporter));
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain(`slug: "renamed-two" is used on the service by "Remote change 2" (remote-0002), which entries/${mirror} mirrors`);
    expect(world.store.listEntries(world.ws)).toHaveLength(count);
    expect(parseEntryFile(rel, await readFile(join(world.contentDir, rel))).data.identifier).toBeUndefined();
  });
});
