// Decompression bombs, end to end: images whose header declares more pixels than a decoder
// should ever be given, a few dozen bytes each (a PNG of 1 x 10,000,000, one of 10,000,000 x
// 1, one of 50,000 x 50,000, a GIF on a 65,535 x 65,535 logical screen), through pull (on
// the service's image host) and build (the team's own, in content/images/): the real CLI,
// within 1 GB for the whole process tree (test/helpers/process/peak-memory.ts), each bomb
// named in the report with its entry. Pull refuses them (the entries keep the remote URLs);
// build shows them as they are, not encoded. Before the bounds, the build decoded them:
// 1.7 GB and 91 s for the tall PNG alone, where it now takes 130 MB and 3 s.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore } from '../../../src/emulator/store.js';
import { tempDir } from '../../helpers/process/cli.js';
import { runCliMeasured } from '../../helpers/process/peak-memory.js';
import { PNG_3X2, gifDeclaring, pngDeclaring } from '../../helpers/sync/media.js';

vi.setConfig({ testTimeout: 240_000 });

/** 1 GB, in KiB. */
const ONE_GB_KIB = 1024 * 1024;

/** The bombs: file name, bytes, what the report says of their size. */
const BOMBS: Array<[string, Buffer, string]> = [
  ['tall.png', pngDeclaring(1, 10_000_000), '1 x 10,000,000 pixels: taller than 16,384'],
  ['wide.png', pngDeclaring(10_000_000, 1), '10,000,000 x 1 pixels: wider than 16,384'],
  ['square.png', pngDeclaring(50_000, 50_000), '50,000 x 50,000 pixels: wider than 16,384'],
  ['screen.gif', gifDeclaring(65_535, 65_535), '65,535 x 65,535 pixels: wider than 16,384'],
];

const escape = (s: string) => s.replace(/[.?*+^$()[\]{}|\\/]/g, '\\$&');

let emu: RunningEmulator;
let dir: string;
let cleanup: () => Promise<void>;
let env: Record<string, string>;

beforeAll(async () => {
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: 'Bombs', tokens: ['bomb-token'] });
  store.media.set('fine.png', { type: 'image/png', body: PNG_3X2 });
  BOMBS.forEach(([name, bytes], i) => {
    store.media.set(name, { type: name.endsWith('.gif') ? 'image/gif' : 'image/png', body: bytes });
    store.insertEntry(ws, { title: `Bomb ${i}`, slug: `bomb-${i}`, publish_at: `2026-01-0${i + 1}`, content: `<p>Look.</p><p><img src="{{media}}/${name}" alt="${name}"></p>` });
  });
  store.insertEntry(ws, { title: 'Fine', slug: 'fine', publish_at: '2026-02-01', content: '<p><img src="{{media}}/fine.png" alt="fine"></p>' });
  emu = await startEmulator({ port: 0, store });
  ({ dir, cleanup } = await tempDir());
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bomb-token' };
});
afterAll(async () => {
  await emu?.close();
  await cleanup?.();
});

describe('images that declare too many pixels', () => {
  it('pull refuses each before it is stored, names it with its entry, and stays within 1 GB', async () => {
    const r = await runCliMeasured(['pull'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    for (const [i, [name, , size]] of BOMBS.entries()) {
      expect(out).toMatch(new RegExp(`image not downloaded: ${escape(`${emu.mediaUrl}/${name}`)} in entries/2026-01-0${i + 1}-bomb-${i}\\.md \\("Bomb ${i}"\\): too large to decode: ${escape(size)}`));
      // The entry keeps the remote URL.
      expect(await readFile(join(dir, `content/entries/2026-01-0${i + 1}-bomb-${i}.md`), 'utf8')).toContain(`](${emu.mediaUrl}/${name})`);
    }
    // Only the fine image is stored.
    expect(await readdir(join(dir, 'content/media'))).toHaveLength(1);
    expect(r.peakKib).toBeLessThan(ONE_GB_KIB);
  });

  it("build shows the team's own as they are, not decoded, names each with its entry, and stays within 1 GB", async () => {
    await mkdir(join(dir, 'content/images'), { recursive: true });
    for (const [name, bytes] of BOMBS) await writeFile(join(dir, 'content/images', name), bytes);
    await writeFile(join(dir, 'content/entries/2026-03-01-own.md'), `---\ntitle: Our own\nis_published: true\npublish_at: 2026-03-01\n---\n${BOMBS.map(([name]) => `![${name}](/images/${name})`).join('\n\n')}\n`);
    const r = await runCliMeasured(['build'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    for (const [name, , size] of BOMBS) expect(out).toMatch(new RegExp(`content/images/${escape(name)}: too large to decode, ${escape(size)} \\(maxImageSide\\): shown in entries/2026-03-01-own\\.md as it is, not encoded`));
    // Shown by their own URL, and nothing encoded from them.
    const pages = await Promise.all((await readdir(join(dir, '_site/entries'))).map((slug) => readFile(join(dir, '_site/entries', slug, 'index.html'), 'utf8').catch(() => '')));
    const page = pages.find((p) => p.includes('<h1') && /<h1[^>]*>Our own/.test(p))!;
    for (const [name] of BOMBS) expect(page).toContain(`src="/images/${name}"`);
    const encoded = existsSync(join(dir, '_site/img')) ? await readdir(join(dir, '_site/img')) : [];
    expect(encoded.filter((f) => /^(tall|wide|square|screen)/.test(f))).toEqual([]);
    expect(r.peakKib).toBeLessThan(ONE_GB_KIB);
  });
});
