// A deadline for the image step of a pull. One entry with many images on a
// host that accepts and never answers (a held server on loopback), beside an entry without
// images and two images the service's image host serves: the real CLI's pull ends at the
// deadline (set to 2 s here; each download's own limit is 30 s, so without it the pull takes
// 90 s), every entry file is written, the media record keeps what finished (which of the
// service's images that is depends on the load; the held ones never finish), the rest is
// reported and fetched by the next pull once the host answers. And the record is saved as
// downloads finish: a pull killed while the held downloads are pending (a deadline of ten
// minutes) has recorded the images that came.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore } from '../../../src/emulator/store.js';
import { runCli, spawnCli, tempDir } from '../../helpers/process/cli.js';
import { GIF_1X1, PNG_1X1, PNG_3X2 } from '../../helpers/sync/media.js';

vi.setConfig({ testTimeout: 120_000 });

const HELD = 12;

let emu: RunningEmulator;
let host: Server;
let hostUrl = '';
/** Paths the held host was asked for. */
const asked: string[] = [];
/** False: every request is held open; true: answered with a PNG (the host is back). */
let answering = false;
const held: ServerResponse[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  host = createServer((req, res) => {
    asked.push(req.url ?? '');
    // Another PNG per path, so that each is its own copy.
    const n = Number(/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    const png = Buffer.concat([PNG_1X1, Buffer.from([n])]);
    if (answering) res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) }).end(png);
    else held.push(res);
  });
  host.listen(0, '127.0.0.1');
  await once(host, 'listening');
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: 'Deadline', tokens: ['deadline-token'] });
  store.media.set('a.png', { type: 'image/png', body: PNG_3X2 });
  store.media.set('b.gif', { type: 'image/gif', body: GIF_1X1 });
  store.insertEntry(ws, { title: 'Plain', slug: 'plain', publish_at: '2026-01-01', content: '<p>No images.</p>' });
  const images = ['{{media}}/a.png', '{{media}}/b.gif', ...Array.from({ length: HELD }, (_, i) => `${hostUrl}/held-${i}.png`)];
  store.insertEntry(ws, { title: 'Many', slug: 'many', publish_at: '2026-01-02', content: images.map((src, i) => `<p><img src="${src}" alt="shot ${i}"></p>`).join('') });
  emu = await startEmulator({ port: 0, store });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  host.closeAllConnections();
  host.close();
  await emu?.close();
  for (const c of cleanups) await c();
});

const env = () => ({ CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'deadline-token' });

/** A project whose pulls give their images `seconds` in all. */
async function project(seconds: number): Promise<string> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ imageDeadlineSeconds: seconds }));
  return dir;
}

const record = async (dir: string): Promise<Record<string, { file?: string }>> =>
  existsSync(join(dir, '.changelog/media.json')) ? (JSON.parse(await readFile(join(dir, '.changelog/media.json'), 'utf8')) as { media: Record<string, { file?: string }> }).media : {};

const heldUrls = () => Array.from({ length: HELD }, (_, i) => `${hostUrl}/held-${i}.png`);

describe('the deadline of a pull\'s images', () => {
  it('ends the image step: every entry written, what finished recorded, the rest reported and fetched by the next pull', async () => {
    answering = false;
    const dir = await project(2);
    const r = await runCli(['pull'], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(r.signal, 'the pull did not end by its deadline').toBeNull();
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    // Every entry file, the one without images too.
    expect((await readdir(join(dir, 'content/entries'))).sort()).toEqual(['2026-01-01-plain.md', '2026-01-02-many.md']);
    const many = await readFile(join(dir, 'content/entries/2026-01-02-many.md'), 'utf8');
    // The images that came are copies and recorded; the rest keep their URLs and are reported.
    // Which of the service's two images came within 2 s depends on the machine's load, so the
    // figures follow from the record; the held ones never come, whatever the load.
    const media = await record(dir);
    const came = Object.keys(media).sort();
    for (const url of came) expect([`${emu.mediaUrl}/a.png`, `${emu.mediaUrl}/b.gif`]).toContain(url);
    expect(many.match(/\]\(\/media\/[0-9a-f]{64}\.(png|gif)\)/g) ?? []).toHaveLength(came.length);
    for (const url of heldUrls()) {
      expect(many).toContain(`](${url})`);
      expect(out).toContain(`! image not downloaded yet: ${url} in entries/2026-01-02-many.md ("Many"): not fetched within the 2 s for a pull's images (imageDeadlineSeconds); the entry keeps the remote URL (the next pull tries again)`);
    }
    expect(out).toContain(`images: ${came.length} downloaded, ${came.length} new in content/media/, 0 not downloaded, ${HELD + 2 - came.length} left for the next pull`);
    expect(asked.length).toBeGreaterThan(0);

    // The host answers again: the next pull fetches the rest and names the copies.
    answering = true;
    const next = await runCli(['pull'], { cwd: dir, env: env() });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout + next.stderr).not.toContain('not downloaded yet');
    const after = await readFile(join(dir, 'content/entries/2026-01-02-many.md'), 'utf8');
    expect(after.match(/\]\(\/media\/[0-9a-f]{64}\.(png|gif)\)/g)).toHaveLength(2 + HELD);
    expect(Object.values(await record(dir)).filter((e) => e.file)).toHaveLength(2 + HELD);
  });

  it('the record is saved as downloads finish: a pull killed while others are pending has recorded those that came', async () => {
    answering = false;
    const dir = await project(600);
    const before = asked.length;
    const { child, done } = spawnCli(['pull'], { cwd: dir, env: env() });
    // Both images of the service's host recorded, while held downloads are open.
    await vi.waitFor(
      async () => {
        expect(asked.length).toBeGreaterThan(before);
        expect(Object.keys(await record(dir))).toHaveLength(2);
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    await done;
    const media = await record(dir);
    expect(Object.keys(media).sort()).toEqual([`${emu.mediaUrl}/a.png`, `${emu.mediaUrl}/b.gif`]);
    for (const e of Object.values(media)) expect(existsSync(join(dir, 'content/media', e.file!))).toBe(true);

    answering = true;
    const next = await runCli(['pull'], { cwd: dir, env: env() });
    expect(next.code, next.stderr).toBe(0);
    expect(Object.values(await record(dir)).filter((e) => e.file)).toHaveLength(2 + HELD);
  });
});
