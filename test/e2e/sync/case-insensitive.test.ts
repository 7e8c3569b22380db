// Pull on a real case-insensitive file system: a FAT image mounted
// through FUSE (fusefat), as a clone on macOS or Windows sees its files: one name in any
// case, no hard links. The real CLI against the emulator over HTTP. Skipped, with the
// reason printed, where fusefat or mkfs.vfat is missing or FUSE cannot mount.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { runCli, tempDir } from '../../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../../helpers/service/emulator.js';

let fx: EmulatorFixture;
let env: Record<string, string>;
let base: { dir: string; cleanup: () => Promise<void> };
let mnt: string;
/** Why the file system could not be had, when it could not. */
let unavailable: string | undefined;
let project: string;
let n = 0;

function mounted(path: string): boolean {
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n').some((l) => l.split(' ')[4] === path);
}

beforeAll(async () => {
  fx = await emulatorFixture();
  env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
  base = await tempDir('changelog-sync-fat-');
  mnt = join(base.dir, 'mnt');
  await mkdir(mnt);
  const img = join(base.dir, 'fat.img');
  try {
    await writeFile(img, '');
    await truncate(img, 64 * 2 ** 20);
    execFileSync('mkfs.vfat', [img], { stdio: 'ignore' });
    execFileSync('fusefat', ['-o', 'rw+', img, mnt], { stdio: 'ignore' });
    if (!mounted(mnt)) unavailable = 'fusefat exited without mounting the image';
  } catch (err) {
    unavailable = `a FAT image could not be mounted through FUSE (fusefat, mkfs.vfat): ${(err as Error).message.split('\n')[0]}`;
  }
  if (unavailable) console.log(`skipped: ${unavailable}`);
});

afterAll(async () => {
  if (mnt && mounted(mnt)) execFileSync('fusermount', ['-u', mnt]);
  await base?.cleanup();
  await fx?.close();
});

beforeEach(async (ctx: TestContext) => {
  if (unavailable) ctx.skip();
  project = join(mnt, `p${++n}`);
  await mkdir(join(project, 'content/entries'), { recursive: true });
  for (const e of fx.store.listEntries(fx.ws)) fx.store.deleteEntry(fx.ws, e.identifier);
});

const draft = '---\ntitle: Our release notes, a draft\npublish_at: 2026-03-01\n---\n\nNot sent yet: the writer is still on it.\n';

describe('a case-insensitive file system (FAT through FUSE)', () => {
  it('is one: two spellings name one file', async () => {
    await writeFile(join(project, 'content/entries/Probe.md'), 'x');
    expect(await readFile(join(project, 'content/entries/probe.md'), 'utf8')).toBe('x');
  });

  it("a writer's unpushed 2026-03-01-Release-notes.md and a remote entry release-notes of that day: after pull the draft is intact and the entry is in another file", async () => {
    const entries = join(project, 'content/entries');
    await writeFile(join(entries, '2026-03-01-Release-notes.md'), draft);
    const remote = fx.store.insertEntry(fx.ws, { title: 'Release notes', slug: 'release-notes', publish_at: '2026-03-01', content: '<p>From the service.</p>' });
    const r = await runCli(['pull', '--json'], { cwd: project, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(entries, '2026-03-01-Release-notes.md'), 'utf8')).toBe(draft);
    const names = (await readdir(entries)).filter((f) => f.endsWith('.md'));
    expect(names).toHaveLength(2);
    const other = names.find((f) => f !== '2026-03-01-Release-notes.md')!;
    expect(other.toLowerCase()).not.toBe('2026-03-01-release-notes.md');
    const text = await readFile(join(entries, other), 'utf8');
    expect(text).toContain(`identifier: ${remote.identifier}`);
    expect(text).toContain('From the service.');
  });

  it("a remote entry renamed on the service to the name of a writer's draft in another case: the rename goes elsewhere, the draft stays", async () => {
    const entries = join(project, 'content/entries');
    const remote = fx.store.insertEntry(fx.ws, { title: 'Old name', slug: 'old-name', publish_at: '2026-03-01', content: '<p>Body.</p>' });
    const first = await runCli(['pull'], { cwd: project, env, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    await writeFile(join(entries, '2026-03-01-Release-notes.md'), draft);
    fx.store.updateEntry(fx.ws, remote.identifier, { slug: 'release-notes', title: 'Release notes', content: '<p>Renamed.</p>' });
    const r = await runCli(['pull'], { cwd: project, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(entries, '2026-03-01-Release-notes.md'), 'utf8')).toBe(draft);
    const names = (await readdir(entries)).filter((f) => f.endsWith('.md'));
    expect(names).toHaveLength(2);
    const moved = names.find((f) => f !== '2026-03-01-Release-notes.md')!;
    expect(moved).not.toBe('2026-03-01-old-name.md');
    expect(await readFile(join(entries, moved), 'utf8')).toContain('Renamed.');
  });
});
