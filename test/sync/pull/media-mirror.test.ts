// Pull mirrors images into the repository, against the emulator and its
// image host over HTTP, in temporary directories.
import { existsSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MediaOptions } from '../../../src/sync/pull/media-mirror.js';
import { pull } from '../../../src/sync/pull/pull.js';
import type { PullResult } from '../../../src/sync/pull/pull-run.js';
import { remoteHash, type SyncState } from '../../../src/sync/store/state.js';
import { sha256 } from '../../../src/core/hash.js';
import type { EmulatorEntry } from '../../../src/emulator/store.js';
import { changedPaths, snapshot } from '../../helpers/site/snapshot.js';
import type { EmulatorFixture } from '../../helpers/service/emulator.js';
import { PNG_1X1, PNG_3X2, SVG_WITH_SCRIPT } from '../../helpers/sync/media.js';
import { useMirror } from '../../helpers/sync/mirror.js';

let fx: EmulatorFixture;
let dir: string;
let contentDir: string;
let stateDir: string;

useMirror((mirror) => ({ fx, dir, contentDir, stateDir } = mirror));

// The image host is on loopback: allowed as the commands allow it for a service on loopback (guarded-fetch.ts).
const run = (o: { dryRun?: boolean; media?: MediaOptions } = {}): Promise<PullResult> => pull({ client: fx.client(), contentDir, stateDir, ...o, media: { allowLoopback: true, ...o.media } });
const read = (rel: string) => readFile(join(contentDir, rel), 'utf8');
const fileOf = async (e: EmulatorEntry) => (JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8')) as SyncState).entries[e.identifier]!.file;
const copyOf = (bytes: Buffer | string, ext: string) => `/media/${sha256(bytes)}.${ext}`;
/** Requests of the image host, by path. */
const fetched = () => fx.emu.mediaLog.map((r) => r.path);

/** Three entries: images in HTML, in Editor.js blocks (one shared), and images that fail. */
function seed(): { a: EmulatorEntry; b: EmulatorEntry; c: EmulatorEntry } {
  const m = fx.emu.mediaUrl;
  fx.store.media.set('shot.png', { type: 'image/png', body: PNG_1X1 });
  fx.store.media.set('shot-2.png', { type: 'image/png', body: PNG_3X2 });
  fx.store.media.set('evil.svg', { type: 'image/svg+xml', body: Buffer.from(SVG_WITH_SCRIPT) });
  fx.store.media.set('page.png', { type: 'text/html', body: Buffer.from('<html></html>') });
  const a = fx.store.insertEntry(fx.ws, { title: 'Dark mode', slug: 'dark-mode', publish_at: '2026-01-02', content: `<p>Here.</p><p><img src="${m}/shot.png" alt="Shot"></p><p><img src="${m}/evil.svg" alt="Diagram"></p>` });
  const b = fx.store.insertEntry(fx.ws, {
    title: 'Exports',
    slug: 'exports',
    publish_at: '2026-01-03',
    content: { time: 1, blocks: [{ type: 'paragraph', data: { text: 'Faster.' } }, { type: 'image', data: { file: { url: `${m}/shot-2.png` }, caption: 'New' } }, { type: 'image', data: { url: `${m}/shot.png`, caption: 'Same' } }] },
  });
  const c = fx.store.insertEntry(fx.ws, {
    title: 'Broken',
    slug: 'broken',
    publish_at: '2026-01-04',
    content: `<p><img src="${m}/missing.png" alt="Gone"><img src="${m}/page.png" alt="Page"><img src="data:image/png;base64,${PNG_1X1.toString('base64')}" alt="Inline"><img src="/images/local.png" alt="Relative"></p>`,
  });
  return { a, b, c };
}

describe('pull mirrors images', () => {
  it('downloads each image once into content/media/<sha256>.<ext>, and the Markdown names the copy', async () => {
    const { a, b, c } = seed();
    const r = await run();
    expect(r.created).toHaveLength(3);
    expect(fetched().sort()).toEqual(['/media/evil.svg', '/media/missing.png', '/media/page.png', '/media/shot-2.png', '/media/shot.png']);
    expect(r.media.fetched).toBe(5);
    expect(r.media.written).toHaveLength(3);
    expect(await read(await fileOf(a))).toContain(`![Shot](${copyOf(PNG_1X1, 'png')})`);
    const fileB = await read(await fileOf(b));
    expect(fileB).toContain(`![New](${copyOf(PNG_3X2, 'png')})`);
    expect(fileB).toContain(`![Same](${copyOf(PNG_1X1, 'png')})`);
    // The copies are the bytes served, named by their hash.
    expect(await readFile(join(contentDir, copyOf(PNG_3X2, 'png')))).toEqual(PNG_3X2);
    // The SVG is stored sanitised.
    const svgRef = /!\[Diagram\]\((\/media\/[0-9a-f]{64}\.svg)\)/.exec(await read(await fileOf(a)))![1]!;
    const svg = await readFile(join(contentDir, svgRef), 'utf8');
    expect(svg).toContain('<rect');
    expect(svg).not.toMatch(/script|onload|onclick|foreignObject|evil\.example/i);
    expect(r.media.sanitized.map((s) => s.url)).toEqual([`${fx.emu.mediaUrl}/evil.svg`]);
    // Failures: once each, with the entry; the entry keeps the remote URL. data: and relative URLs are left alone.
    expect(r.media.failed.map((f) => [f.url, f.entries.map((e) => e.file), f.reason])).toEqual([
      [`${fx.emu.mediaUrl}/missing.png`, [await fileOf(c)], 'HTTP 404'],
      [`${fx.emu.mediaUrl}/page.png`, [await fileOf(c)], expect.stringMatching(/not an image type/)],
    ]);
    const fileC = await read(await fileOf(c));
    expect(fileC).toContain(`${fx.emu.mediaUrl}/missing.png`);
    expect(fileC).toContain('(/images/local.png)');
    expect(fileC).toContain('data:image/png;base64,');
    // The record: original URL -> copy, or the failure.
    const record = JSON.parse(await readFile(join(stateDir, 'media.json'), 'utf8')) as { media: Record<string, { file?: string; failed?: string }> };
    expect(record.media[`${fx.emu.mediaUrl}/shot.png`]).toEqual({ file: `${sha256(PNG_1X1)}.png` });
    expect(record.media[`${fx.emu.mediaUrl}/missing.png`]!.failed).toBe('HTTP 404');
    expect(r.writes).toContain('state:media.json');
  });

  it('a second pull fetches nothing and writes nothing', async () => {
    seed();
    await run();
    const before = await snapshot(dir);
    const requests = fx.emu.mediaLog.length;
    expect(requests).toBe(5);
    const r = await run();
    expect(fx.emu.mediaLog.length).toBe(requests);
    expect(r.media.fetched).toBe(0);
    expect(r.writes).toEqual([]);
    expect(changedPaths(before, await snapshot(dir))).toEqual([]);
  });

  it('a mirrored image is never a local edit: the remote hash is the service entry, a remote change rewrites the file with the copies', async () => {
    const { a } = seed();
    await run();
    const state = JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8')) as SyncState;
    const listed = (await fx.client().listEntries()).find((e) => e.identifier === a.identifier)!;
    expect(listed.content).toContain(`${fx.emu.mediaUrl}/shot.png`);
    expect(state.entries[a.identifier]!.remoteHash).toBe(remoteHash(listed));
    const plan = await run({ dryRun: true });
    expect([plan.updated, plan.localEdits, plan.conflicts, plan.media.rewritten]).toEqual([[], [], [], []]);
    fx.store.updateEntry(fx.ws, a.identifier, { title: 'Dark mode, now default' });
    const requests = fx.emu.mediaLog.length;
    const r = await run();
    expect(r.updated.map((i) => i.identifier)).toEqual([a.identifier]);
    expect(r.conflicts).toEqual([]);
    expect(fx.emu.mediaLog.length).toBe(requests);
    expect(await read(await fileOf(a))).toContain(`![Shot](${copyOf(PNG_1X1, 'png')})`);
  });

  it('a failed image is tried again a day later, not before, and the file then names the copy', async () => {
    const { c } = seed();
    const t0 = Date.parse('2026-11-25T10:00:00Z');
    await run({ media: { now: () => t0 } });
    fx.store.media.set('missing.png', { type: 'image/png', body: PNG_3X2 });
    const requests = fx.emu.mediaLog.length;
    const soon = await run({ media: { now: () => t0 + 3_600_000 } });
    expect(fx.emu.mediaLog.length).toBe(requests);
    expect(soon.writes).toEqual([]);
    const later = await run({ media: { now: () => t0 + 25 * 3_600_000 } });
    expect(fx.emu.mediaLog.slice(requests).map((l) => l.path).sort()).toEqual(['/media/missing.png', '/media/page.png']);
    expect(later.media.rewritten.map((i) => i.identifier)).toEqual([c.identifier]);
    expect([later.updated, later.conflicts, later.localEdits]).toEqual([[], [], []]);
    expect(await read(await fileOf(c))).toContain(`![Gone](${copyOf(PNG_3X2, 'png')})`);
    expect(later.media.failed.map((f) => f.url)).toEqual([`${fx.emu.mediaUrl}/page.png`]);
  });

  it('a mirror made before images were mirrored gets its copies, and a deleted copy is fetched again', async () => {
    const { a, b } = seed();
    await run({ media: { enabled: false } });
    expect(fx.emu.mediaLog).toEqual([]);
    expect(await read(await fileOf(a))).toContain(`${fx.emu.mediaUrl}/shot.png`);
    const r = await run();
    expect(r.media.rewritten.map((i) => i.identifier).sort()).toEqual([a.identifier, b.identifier].sort());
    expect(r.created.length + r.updated.length + r.conflicts.length + r.localEdits.length).toBe(0);
    expect(await read(await fileOf(a))).toContain(`![Shot](${copyOf(PNG_1X1, 'png')})`);
    // A copy removed from the repository comes back; the entry files are not touched.
    await rm(join(contentDir, copyOf(PNG_3X2, 'png')));
    const requests = fx.emu.mediaLog.length;
    const again = await run();
    expect(fx.emu.mediaLog.slice(requests).map((l) => l.path)).toEqual(['/media/shot-2.png']);
    expect(again.writes).toEqual([copyOf(PNG_3X2, 'png').slice(1)]);
    expect(existsSync(join(contentDir, copyOf(PNG_3X2, 'png')))).toBe(true);
  });

  it('a dry run downloads and writes nothing', async () => {
    seed();
    const r = await run({ dryRun: true });
    expect(r.media.fetched).toBe(5);
    expect(fx.emu.mediaLog).toEqual([]);
    expect(existsSync(join(contentDir, 'media'))).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });
});
