// `changelog-sync emulator --seed`, the real CLI: the demo's workspace images are served by the
// emulator's own image host, on whatever port it listens (no http://localhost:8080 that only
// a preview on that port would answer); and a folder of entry files (Markdown with
// frontmatter, as src/emulator/demo/entries/ holds them) seeds a workspace a pull mirrors back.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { runCli, spawnCli, useTempDir } from '../../helpers/process/cli.js';

vi.setConfig({ testTimeout: 60_000 });

const DEMO_ENTRIES = fileURLToPath(new URL('../../../src/emulator/demo/entries/', import.meta.url));

describe('emulator --seed', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  let stop: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  /** Starts `changelog-sync emulator --port 0 <args>` and resolves with its URL once it listens. */
  async function emulator(args: string[]): Promise<string> {
    const { child, done } = spawnCli(['emulator', '--port', '0', ...args], { cwd: dir });
    stop = async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return done;
    };
    let out = '';
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /Emulator listening on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      void done.then((r) => reject(new Error(`the emulator exited (${r.code}): ${r.stderr}`)));
    });
  }

  const get = async (url: string, token: string) => (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<{ data: Record<string, unknown> & Array<Record<string, unknown>> }>;

  it("demo: the workspace's logo and Open Graph image are on the emulator's image host, and answer", async () => {
    const url = await emulator(['--seed', 'demo']);
    const { data } = await get(`${url}/api/workspace`, 'demo-token');
    for (const field of ['logo_url', 'og_image_url']) {
      const image = String(data[field]);
      expect(image).not.toContain('localhost:8080');
      expect(image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\/lumen-(logo\.svg|og\.png)$/);
      const res = await fetch(image);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^image\//);
    }
  });

  it('a folder of entry files: one workspace, an entry per file, mirrored back by pull', async () => {
    const url = await emulator(['--seed', DEMO_ENTRIES]);
    const files = (await readdir(DEMO_ENTRIES)).filter((f) => f.endsWith('.md')).sort();
    const written = await Promise.all(files.map(async (f) => parseEntryFile(f, await readFile(join(DEMO_ENTRIES, f)))));
    const listed = await get(`${url}/api/entries`, 'emulator-token');
    expect(listed.data.map((e) => e.title).sort()).toEqual(written.map((e) => e.data.title).sort());
    // A pull writes each back: its title, date and tags as the file had them.
    const pulled = await runCli(['pull'], { cwd: dir, env: { CHANGELOG_BASE_URL: url, CHANGELOG_TOKEN: 'emulator-token' } });
    expect(pulled.code, pulled.stderr).toBe(0);
    const mirrored = await readdir(join(dir, 'content/entries'));
    expect(mirrored).toHaveLength(files.length);
    for (const e of written) {
      const name = mirrored.find((m) => m.startsWith(String(e.data.publish_at)))!;
      const back = parseEntryFile(name, await readFile(join(dir, 'content/entries', name)));
      expect(back.data).toMatchObject({ title: e.data.title, publish_at: e.data.publish_at, tags: e.data.tags });
    }
  });

  it('a folder with a file that is not an entry file: refused, naming the file', async () => {
    await writeFile(join(dir, '2026-01-01-ok.md'), '---\ntitle: Fine\n---\nText.\n');
    await writeFile(join(dir, '2026-01-02-bad.md'), '---\ntitle: [unclosed\n---\nText.\n');
    const r = await runCli(['emulator', '--port', '0', '--seed', dir], { cwd: dir });
    expect(r.code).toBe(1);
    // Named relative to the working directory the CLI was started in.
    expect(r.stderr).toContain('error E_FILE: 2026-01-02-bad.md:3: ');
  });
});
