// Remote data never blocks the site: a null or empty title, a status of
// another type, one identifier twice in a listing are mirrored with a note; the rest of the
// pull and the build go on, exit 0 (a warning, not an error). `check` tells a mirrored
// entry's odd data (a warning) from a writer's new file (an error). The commands (run in the
// test's process as the CLI runs them, helpers/process/command.ts) against the emulator over HTTP,
// and a real build.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import type { EmulatorEntry } from '../../../src/emulator/store.js';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { checkCommand } from '../../../src/cli/commands/check.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { runCommand } from '../../helpers/process/command.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../../helpers/service/emulator.js';

let fx: EmulatorFixture;
let env: Record<string, string>;
beforeAll(async () => {
  fx = await emulatorFixture();
  env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token, CHANGELOG_SITE_URL: 'https://acme.example.com/', GITHUB_ACTIONS: '' };
});
afterAll(() => fx.close());

/** What the service sends, whatever the emulator's types say. */
const odd = (e: EmulatorEntry, patch: Record<string, unknown>) => Object.assign(e as unknown as Record<string, unknown>, patch);

describe('odd entries from the service', () => {
  let d: string;
  useTempDir((made) => (d = made));
  let ids: { nullTitle: string; emptyTitle: string; numberStatus: string; twice: string; fine: string };

  beforeAll(() => {
    const nullTitle = fx.store.insertEntry(fx.ws, { title: 'x', slug: 'release-notes', publish_at: '2026-03-01', content: '<p>No title.</p>' });
    odd(nullTitle, { title: null });
    const emptyTitle = fx.store.insertEntry(fx.ws, { title: 'x', slug: 'security_update', publish_at: '2026-03-02', content: '<p>Empty title.</p>' });
    odd(emptyTitle, { title: '  ' });
    const numberStatus = fx.store.insertEntry(fx.ws, { title: 'Numbered status', slug: 'numbered-status', publish_at: '2026-03-03', content: '<p>Status 5.</p>' });
    odd(numberStatus, { status: 5 });
    const twice = fx.store.insertEntry(fx.ws, { title: 'Listed twice', slug: 'listed-twice', publish_at: '2026-03-04', content: '<p>Twice.</p>' });
    fx.ws.entries.push({ ...twice, content: '<p>Twice, other text.</p>' });
    const fine = fx.store.insertEntry(fx.ws, { title: 'Fine', slug: 'fine', publish_at: '2026-03-05', content: '<p>Fine.</p>' });
    ids = { nullTitle: nullTitle.identifier, emptyTitle: emptyTitle.identifier, numberStatus: numberStatus.identifier, twice: twice.identifier, fine: fine.identifier };
  });

  it('pull mirrors every entry once, with a note for each odd one, and exits 0', async () => {
    const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: d, env });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain(`note: entry ${ids.nullTitle} has no title on the service: mirrored with the title "Release notes", made from its slug`);
    expect(out).toContain(`note: entry ${ids.emptyTitle} has no title on the service: mirrored with the title "Security update", made from its slug`);
    expect(out).toContain(`note: entry ${ids.numberStatus} has the status "5" on the service, which is not a status word: kept as text`);
    expect(out).toContain(`note: the service listed entry ${ids.twice} 2 times, with different data: mirrored once, from its first listing`);
    const names = (await readdir(join(d, 'content/entries'))).sort();
    expect(names).toEqual(['2026-03-01-release-notes.md', '2026-03-02-security-update.md', '2026-03-03-numbered-status.md', '2026-03-04-listed-twice.md', '2026-03-05-fine.md']);
    const files = await Promise.all(names.map(async (n) => parseEntryFile(n, await readFile(join(d, 'content/entries', n)))));
    expect(files.map((f) => f.data.title)).toEqual(['Release notes', 'Security update', 'Numbered status', 'Listed twice', 'Fine']);
    expect(files[2]!.data.status).toBe('5');
    expect(files.every((f) => f.notes === undefined)).toBe(true);
  });

  it('the build goes on and exits 0; check passes the mirror', async () => {
    const b = await runCommand((config, reporter) => buildCommand(config, reporter, { noCache: true }), { cwd: d, env });
    expect(b.code, b.stderr).toBe(0);
    expect(await readFile(join(d, '_site/entries/release-notes/index.html'), 'utf8')).toContain('Release notes');
    const c = await runCommand((config, reporter) => checkCommand(config, reporter), { cwd: d });
    expect(c.code, c.stdout).toBe(0);
  });
});

describe('check: a mirrored entry without a title is a warning, a new file without one an error', () => {
  let d: string;
  useTempDir((made) => (d = made));

  it('and the build shows the mirrored entry under a title from its slug, exit 0', async () => {
    await mkdir(join(d, 'content/entries'), { recursive: true });
    // As pull wrote a null title before: `title: ""`.
    await writeFile(join(d, 'content/entries/2026-03-01-release-notes.md'), '---\ntitle: ""\nslug: release-notes\npublish_at: 2026-03-01\nnotify_subscribers: false\nstatus: published\nidentifier: 0190abcd-0000-7000-8000-000000000001\n---\n\nFrom the service.\n');
    const c1 = await runCommand((config, reporter) => checkCommand(config, reporter), { cwd: d });
    expect(c1.stdout).toContain('content/entries/2026-03-01-release-notes.md:2: warning: title: a mirrored entry without a title: shown as "Release notes", made from its slug');
    expect(c1.code).toBe(0);
    const b = await runCommand((config, reporter) => buildCommand(config, reporter, { noCache: true }), { cwd: d, env });
    expect(b.code, b.stderr).toBe(0);
    expect(await readFile(join(d, '_site/entries/release-notes/index.html'), 'utf8')).toContain('From the service.');

    await writeFile(join(d, 'content/entries/2026-03-02-new.md'), '---\ntitle: ""\npublish_at: 2026-03-02\n---\n\nA writer\'s text.\n');
    const c2 = await runCommand((config, reporter) => checkCommand(config, reporter), { cwd: d });
    expect(c2.stdout).toContain('content/entries/2026-03-02-new.md:2: error: title: is required');
    expect(c2.code).toBe(5);
  });
});
