// Pull of entries with images on the service's image host: the
// copies are in the repository; pull, status and push agree that nothing changed;
// the site shows them under a base path with the emulator stopped; a pull killed at any write
// (the real CLI, at a failpoint) never leaves an entry naming a missing copy. The other runs
// are the commands in the test's process, as the CLI runs them (helpers/process/command.ts).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore } from '../../../src/emulator/store.js';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { statusCommand } from '../../../src/cli/commands/status.js';
import { runCommand } from '../../helpers/process/command.js';
import { runCli, tempDir } from '../../helpers/process/cli.js';
import { PNG_1X1, PNG_3X2, SVG_WITH_SCRIPT } from '../../helpers/sync/media.js';
import { serveStatic } from '../../helpers/browser/static-server.js';

const TOKEN = 'media-token';

/** An emulator whose entries show images of its image host (one missing). */
async function startWorld(): Promise<RunningEmulator> {
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: 'Media', tokens: [TOKEN] });
  store.media.set('a.png', { type: 'image/png', body: PNG_1X1 });
  store.media.set('b.png', { type: 'image/png', body: PNG_3X2 });
  store.media.set('evil.svg', { type: 'image/svg+xml', body: Buffer.from(SVG_WITH_SCRIPT) });
  for (let i = 1; i <= 6; i++) {
    store.insertEntry(ws, { title: `Entry ${i}`, slug: `entry-${i}`, publish_at: `2026-01-0${i}`, content: `<p>Entry ${i}.</p><p><img src="{{media}}/${i % 2 ? 'a' : 'b'}.png" alt="Shot ${i}"></p>` });
  }
  store.insertEntry(ws, { title: 'Diagram', slug: 'diagram', publish_at: '2026-01-07', content: '<p><img src="{{media}}/evil.svg" alt="Diagram"></p>' });
  store.insertEntry(ws, { title: 'Gone', slug: 'gone', publish_at: '2026-01-08', content: '<p><img src="{{media}}/gone.png" alt="Gone"></p><p><img src="{{media}}/gone.png" alt="Again"></p>' });
  return startEmulator({ port: 0, store });
}

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** Every `/media/...` reference of every entry file, and whether its copy exists. */
async function mediaRefs(dir: string): Promise<Array<{ ref: string; exists: boolean }>> {
  const out: Array<{ ref: string; exists: boolean }> = [];
  const entries = join(dir, 'content/entries');
  if (!existsSync(entries)) return out;
  for (const name of await readdir(entries)) {
    for (const m of (await readFile(join(entries, name), 'utf8')).matchAll(/\]\((\/media\/[^)]+)\)/g)) out.push({ ref: m[1]!, exists: existsSync(join(dir, 'content', m[1]!)) });
  }
  return out;
}

describe('pull of entries with images on the service image host', () => {
  let emu: RunningEmulator;
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  beforeAll(async () => {
    emu = await startWorld();
    ({ dir, cleanup } = await tempDir());
    env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: TOKEN };
    git(dir, 'init', '-q');
    git(dir, 'config', 'user.email', 't@example.com');
    git(dir, 'config', 'user.name', 'T');
  });
  afterAll(async () => {
    await emu.close();
    await cleanup();
  });

  it('puts the copies in the repository and reports each image not downloaded once, with its entry', async () => {
    const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain('images: 4 downloaded, 3 new in content/media/, 1 not downloaded');
    expect(out.match(/image not downloaded/g)).toHaveLength(1);
    expect(out).toContain(`image not downloaded: ${emu.mediaUrl}/gone.png in entries/2026-01-08-gone.md ("Gone"): HTTP 404`);
    expect(out).toMatch(/note: image .*evil\.svg: an SVG, stored without .*<script>/);
    expect(emu.mediaLog.map((l) => l.path).sort()).toEqual(['/media/a.png', '/media/b.png', '/media/evil.svg', '/media/gone.png']);
    const refs = await mediaRefs(dir);
    expect(refs).toHaveLength(7);
    expect(refs.every((x) => x.exists)).toBe(true);
    expect((await readdir(join(dir, 'content/media'))).sort()).toHaveLength(3);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'pull');
  });

  it('a second pull fetches 0 images and writes 0 files; status and push agree nothing changed', async () => {
    const requests = emu.mediaLog.length;
    const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env, json: true });
    expect(r.code, r.stderr).toBe(0);
    const pulled = JSON.parse(r.stdout) as { writes: string[]; media: { fetched: number } };
    expect(pulled.writes).toEqual([]);
    expect(pulled.media.fetched).toBe(0);
    expect(emu.mediaLog.length).toBe(requests);
    // Only the request ledger counts the run's requests.
    expect(git(dir, 'status', '--porcelain')).toBe(' M .changelog/budget.json\n');
    const s = await runCommand((config, reporter) => statusCommand(config, reporter), { cwd: dir, env, json: true });
    expect(s.code, s.stderr).toBe(0);
    const status = JSON.parse(s.stdout) as { pull: Record<string, unknown[]>; push: Record<string, unknown[]> };
    for (const k of ['created', 'updated', 'renamed', 'restored', 'conflicts', 'localEdits']) expect(status.pull[k], k).toEqual([]);
    expect([status.push.plan, status.push.rejected, status.push.pending]).toEqual([[], [], []]);
    const posts = emu.log.filter((l) => l.method === 'POST').length;
    const p = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: dir, env, json: true });
    expect(p.code, p.stderr).toBe(0);
    expect((JSON.parse(p.stdout) as { pushed: unknown[] }).pushed).toEqual([]);
    expect(emu.log.filter((l) => l.method === 'POST').length).toBe(posts);
    expect(emu.mediaLog.length).toBe(requests);
  });

  it('the site shows the copies under its base path with the emulator stopped; the SVG carries no script', async () => {
    await emu.close();
    const b = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir, env: { CHANGELOG_SITE_URL: 'https://example.github.io/changelog/' } });
    expect(b.code, b.stderr).toBe(0);
    const server = await serveStatic(join(dir, '_site'), {}, { prefix: '/changelog/' });
    try {
      const page = await (await fetch(`${server.url}/changelog/entries/entry-2/`)).text();
      // The page shows the build's encoded copy (src/site/render/images.ts) with the file's size; the
      // mirrored copy itself is published at /media/, byte for byte.
      const srcs = [...page.matchAll(/<img\b[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!).filter((s) => s.includes('/img/'));
      expect(srcs).toHaveLength(1);
      expect(srcs[0]).toMatch(/^\/changelog\/img\/[^"]+\.png$/);
      expect(page).toMatch(/<img\b[^>]*\/changelog\/img\/[^>]*width="3" height="2"/);
      expect((await fetch(`${server.url}${srcs[0]}`)).status).toBe(200);
      const pngCopy = (await readdir(join(dir, 'content/media'))).find((n) => n.endsWith('.png'))!;
      const img = await fetch(`${server.url}/changelog/media/${pngCopy}`);
      expect(img.status).toBe(200);
      expect(Buffer.from(await img.arrayBuffer())).toEqual(PNG_3X2);
      const diagram = await (await fetch(`${server.url}/changelog/entries/diagram/`)).text();
      const svgSrc = /<img\b[^>]*\ssrc="(\/changelog\/(?:img|media)\/[^"]+\.svg)"/.exec(diagram)![1]!;
      const svg = await (await fetch(`${server.url}${svgSrc}`)).text();
      expect(svg).toContain('<rect');
      expect(svg).not.toMatch(/script|onload|onclick|foreignObject|evil\.example/i);
    } finally {
      await server.close();
    }
  });
});

describe('a pull killed at any write never leaves an entry naming a missing copy', () => {
  // After the copies and their record, before any entry; after the first entry file, before the state.
  for (const point of ['pull:after-plan', 'pull:after-write:1']) {
    it(`killed at ${point}, then resumed`, async () => {
      const emu = await startWorld();
      const { dir, cleanup } = await tempDir();
      try {
        const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: TOKEN };
        const killed = await runCli(['pull'], { cwd: dir, env: { ...env, CHANGELOG_FAILPOINT: point } });
        expect(killed.signal).toBe('SIGKILL');
        expect((await mediaRefs(dir)).filter((x) => !x.exists)).toEqual([]);
        const requests = emu.mediaLog.length;
        const resumed = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env, json: true });
        expect(resumed.code, resumed.stderr).toBe(0);
        // The copies written before the kill are not fetched again (the failed one is retried a day later).
        expect(emu.mediaLog.length).toBe(requests);
        const refs = await mediaRefs(dir);
        expect(refs).toHaveLength(7);
        expect(refs.every((x) => x.exists)).toBe(true);
        const after = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env, json: true });
        expect((JSON.parse(after.stdout) as { writes: string[] }).writes).toEqual([]);
      } finally {
        await emu.close();
        await cleanup();
      }
    });
  }
});
