// Portable file names: the rules by name, NFC and NFD spellings, and
// pull against the emulator in a folder where a writer's file differs from the remote
// entry's name only in case or Unicode form. The same on a real case-insensitive file
// system: test/e2e/sync/case-insensitive.test.ts.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomicSync } from '../../src/core/atomic-file.js';
import { pull } from '../../src/sync/pull/pull.js';
import { FoldedNames, MAX_NAME_BYTES, nameKey, portableNameProblem } from '../../src/entry/portable-name.js';
import { openMirror, type MirrorFixture } from '../helpers/sync/mirror.js';

describe('portableNameProblem', () => {
  it('passes the names pull and new write', () => {
    for (const n of ['2026-03-01-release-notes.md', 'undated-entry.md', '2026-03-01-x-0190abcd-2.md', 'console.md', 'auxiliary.md', 'com10.md', 'lpt0.md']) expect(portableNameProblem(n), n).toBeUndefined();
  });
  it('refuses Windows-reserved device names, with any extension and in any case', () => {
    for (const n of ['con', 'CON.md', 'prn.txt', 'Aux.md', 'nul', 'nul.tar.gz', 'com1.md', 'COM9', 'lpt1.md', 'LPT9.x', 'com¹.md', 'con .md']) expect(portableNameProblem(n), n).toMatch(/device name Windows reserves/);
  });
  it('refuses characters Windows does not allow and control characters', () => {
    for (const c of ['<', '>', ':', '"', '/', '\\', '|', '?', '*', '\u0000', '\u0001', '\u001f', '\u007f']) expect(portableNameProblem(`2026-03-01-a${c}b.md`), JSON.stringify(c)).toMatch(/does not allow/);
  });
  it('refuses trailing dots and spaces', () => {
    for (const n of ['a.md.', 'a.md ', 'a.', 'a ']) expect(portableNameProblem(n), n).toMatch(/ends with a dot or a space/);
  });
  it('refuses names over 100 bytes of UTF-8, counted in bytes', () => {
    expect(portableNameProblem(`${'a'.repeat(MAX_NAME_BYTES - 3)}.md`)).toBeUndefined();
    expect(portableNameProblem(`${'a'.repeat(MAX_NAME_BYTES - 2)}.md`)).toMatch(/101 bytes/);
    // 52 characters, 101 bytes.
    expect(portableNameProblem(`${'é'.repeat(49)}.md`)).toMatch(/101 bytes/);
  });
  it('refuses empty names and folder references', () => {
    for (const n of ['', '.', '..']) expect(portableNameProblem(n)).toBeDefined();
  });
});

describe('nameKey', () => {
  it('folds case, NFC and NFD, and the trailing dots and spaces Windows drops', () => {
    const nfc = '2026-03-01-caf\u00e9.md';
    const nfd = '2026-03-01-cafe\u0301.md';
    expect(nfc).not.toBe(nfd);
    expect(nameKey(nfc)).toBe(nameKey(nfd));
    expect(nameKey('2026-03-01-Release-Notes.md')).toBe(nameKey('2026-03-01-release-notes.md'));
    expect(nameKey('CAFE\u0301.MD')).toBe(nameKey('caf\u00e9.md'));
    expect(nameKey('a.md.')).toBe(nameKey('a.md'));
    expect(nameKey('Stra\u00dfe.md')).toBe(nameKey('STRASSE.md'));
    expect(nameKey('a.md')).not.toBe(nameKey('b.md'));
  });
  it('FoldedNames: a name is free only for its holder, under every spelling', () => {
    const names = new FoldedNames();
    names.add('entries/2026-03-01-Release-notes.md', '');
    names.add('entries/2026-03-02-caf\u00e9.md', 'id-1');
    expect(names.freeFor('entries/2026-03-01-release-notes.md', 'id-2')).toBe(false);
    expect(names.freeFor('entries/2026-03-02-cafe\u0301.md', 'id-2')).toBe(false);
    expect(names.freeFor('entries/2026-03-02-CAFE\u0301.md', 'id-1')).toBe(true);
    expect(names.freeFor('entries/2026-03-03-other.md', 'id-2')).toBe(true);
  });
});

describe('writeFileAtomicSync with exclusive', () => {
  let m: MirrorFixture;
  beforeEach(async () => (m = await openMirror()));
  afterEach(() => m.cleanup());
  it('never replaces a file that has the name, and leaves no temporary file', async () => {
    await mkdir(m.dir, { recursive: true });
    const path = join(m.dir, 'taken.md');
    await writeFile(path, 'the writer\'s draft\n');
    expect(() => writeFileAtomicSync(path, 'pull\'s text\n', { exclusive: true })).toThrow(/appeared since the folder was listed/);
    expect(await readFile(path, 'utf8')).toBe('the writer\'s draft\n');
    expect((await readdir(m.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    writeFileAtomicSync(join(m.dir, 'new.md'), 'new\n', { exclusive: true });
    expect(await readFile(join(m.dir, 'new.md'), 'utf8')).toBe('new\n');
    expect((await readdir(m.dir)).sort()).toEqual(['new.md', 'taken.md']);
  });
});

describe('pull never writes a name another file has under case folding or NFC', () => {
  let m: MirrorFixture;
  beforeEach(async () => (m = await openMirror()));
  afterEach(() => m.cleanup());

  const draft = '---\ntitle: Our release notes, a draft\npublish_at: 2026-03-01\n---\n\nNot sent yet.\n';

  it("a writer's unpushed 2026-03-01-Release-notes.md and a remote release-notes of that day: the draft intact, the entry in another file", async () => {
    const entries = join(m.contentDir, 'entries');
    await mkdir(entries, { recursive: true });
    await writeFile(join(entries, '2026-03-01-Release-notes.md'), draft);
    const remote = m.fx.store.insertEntry(m.fx.ws, { title: 'Release notes', slug: 'release-notes', publish_at: '2026-03-01', content: '<p>Remote.</p>' });
    const r = await pull({ client: m.fx.client(), contentDir: m.contentDir, stateDir: m.stateDir });
    expect(r.created.map((c) => c.identifier)).toEqual([remote.identifier]);
    const file = r.created[0]!.file;
    expect(file.toLowerCase()).not.toBe('entries/2026-03-01-release-notes.md');
    expect(file).toMatch(/^entries\/2026-03-01-release-notes-[0-9a-f]{8}\.md$/);
    expect(await readFile(join(entries, '2026-03-01-Release-notes.md'), 'utf8')).toBe(draft);
    expect(await readFile(join(m.contentDir, file), 'utf8')).toContain(`identifier: ${remote.identifier}`);
    expect(existsSync(join(entries, '2026-03-01-release-notes.md'))).toBe(false);
  });

  it('a file that does not parse, and entries whose slugs differ in case: every name distinct after folding', async () => {
    const entries = join(m.contentDir, 'entries');
    await mkdir(entries, { recursive: true });
    // Not an entry file (no frontmatter): kept as it is, and its name taken under every spelling.
    await writeFile(join(entries, '2026-03-02-Caf\u00e9.md'), 'notes, not an entry\n');
    await writeFile(join(entries, '2026-03-02-CAFE.md'), 'more notes\n');
    m.fx.store.insertEntry(m.fx.ws, { title: 'Café', slug: 'cafe', publish_at: '2026-03-02', content: '<p>1</p>' });
    m.fx.store.insertEntry(m.fx.ws, { title: 'Updates', slug: 'Updates', publish_at: '2026-03-03', content: '<p>2</p>' });
    m.fx.store.insertEntry(m.fx.ws, { title: 'Updates', slug: 'updates', publish_at: '2026-03-03', content: '<p>3</p>' });
    const r = await pull({ client: m.fx.client(), contentDir: m.contentDir, stateDir: m.stateDir });
    expect(r.created).toHaveLength(3);
    expect(r.failed).toEqual([]);
    const names = await readdir(entries);
    expect(names).toHaveLength(5);
    expect(new Set(names.map((n) => n.normalize('NFC').toLowerCase())).size).toBe(names.length);
    expect(await readFile(join(entries, '2026-03-02-CAFE.md'), 'utf8')).toBe('more notes\n');
  });
});

describe('a deleted mirror file is restored under a name no other file has', () => {
  let m: MirrorFixture;
  beforeEach(async () => (m = await openMirror()));
  afterEach(() => m.cleanup());

  it("its own name when free; another when a writer's file has it in another case", async () => {
    const remote = m.fx.store.insertEntry(m.fx.ws, { title: 'Release notes', slug: 'release-notes', publish_at: '2026-03-01', content: '<p>Remote.</p>' });
    const run = () => pull({ client: m.fx.client(), contentDir: m.contentDir, stateDir: m.stateDir });
    const entries = join(m.contentDir, 'entries');
    expect((await run()).created.map((c) => c.file)).toEqual(['entries/2026-03-01-release-notes.md']);
    await rm(join(entries, '2026-03-01-release-notes.md'));
    expect((await run()).restored.map((c) => c.file)).toEqual(['entries/2026-03-01-release-notes.md']);
    await rm(join(entries, '2026-03-01-release-notes.md'));
    const draft = '---\ntitle: Our release notes, a draft\npublish_at: 2026-03-01\n---\n\nNot sent yet.\n';
    await writeFile(join(entries, '2026-03-01-Release-notes.md'), draft);
    const r = await run();
    expect(r.failed).toEqual([]);
    expect(r.restored.map((c) => c.file)).toEqual([`entries/2026-03-01-release-notes-${remote.identifier.replace(/-/g, '').slice(0, 8)}.md`]);
    expect(await readFile(join(entries, '2026-03-01-Release-notes.md'), 'utf8')).toBe(draft);
    expect((await readdir(entries)).sort()).toEqual(['2026-03-01-Release-notes.md', `2026-03-01-release-notes-${remote.identifier.replace(/-/g, '').slice(0, 8)}.md`]);
  });
});
