// `changelog-sync emulator --seed`, the real CLI: the demo's workspace images are served by the
// emulator's own image host, on whatever port it listens (no http://localhost:8080 that only
// a preview on that port would answer); and a folder of entry files (Markdown with
// frontmatter, as src/emulator/demo/entries/ holds them) seeds a workspace a pull mirrors back.
// The demo seed's two products: each token reads its own workspace only, and what the emulator
// prints (a variable per token, the `workspaces` naming them) is a project that pulls both.
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

  /** What the emulator printed once it listened (its whole banner, up to "Press Ctrl-C"). */
  let banner = '';

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
        banner = out;
        if (m && out.includes('Press Ctrl-C to stop.')) resolve(m[1]!);
      });
      void done.then((r) => reject(new Error(`the emulator exited (${r.code}): ${r.stderr}`)));
    });
  }

  const get = async (url: string, token: string) => (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<{ data: Record<string, unknown> & Array<Record<string, unknown>> }>;

  it('demo: two workspaces, a token each; a token reads its own workspace only', async () => {
    const url = await emulator(['--seed', 'demo']);
    const [app, api] = [await get(`${url}/api/workspace`, 'demo-token'), await get(`${url}/api/workspace`, 'demo-api-token')];
    expect([app.data.name, api.data.name]).toEqual(['Lumen', 'Lumen API']);
    const appEntries = (await get(`${url}/api/entries`, 'demo-token')).data;
    const apiEntries = (await get(`${url}/api/entries`, 'demo-api-token')).data;
    expect(apiEntries.map((e) => e.slug)).toContain('batch-events');
    const appIds = new Set(appEntries.map((e) => e.identifier));
    expect(apiEntries.filter((e) => appIds.has(e.identifier))).toEqual([]);
    // One workspace's entry asked for by its identifier with the other's token: not found; with its own: there.
    const ask = (id: unknown, token: string) => fetch(`${url}/api/entries/${String(id)}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    expect((await ask(apiEntries[0]!.identifier, 'demo-token')).status).toBe(404);
    expect((await ask(appEntries[0]!.identifier, 'demo-api-token')).status).toBe(404);
    expect((await ask(apiEntries[0]!.identifier, 'demo-api-token')).status).toBe(200);
  });

  it("demo: what it prints is a project of both workspaces: each pulled into its folder with its own token", async () => {
    const url = await emulator(['--seed', 'demo']);
    // As a user copies it: the one-workspace lines stay, then the workspaces and a variable for each token.
    expect(banner).toContain(`  export CHANGELOG_BASE_URL=${url}\n  export CHANGELOG_TOKEN=demo-token\n`);
    const config = /changelog\.config\.json (\{.*\})\):\n/.exec(banner)?.[1];
    expect(JSON.parse(config!)).toEqual({ workspaces: { app: { tokenEnv: 'CHANGELOG_TOKEN_APP' }, api: { tokenEnv: 'CHANGELOG_TOKEN_API' } } });
    const env = Object.fromEntries([...banner.matchAll(/^ {2}export (CHANGELOG_TOKEN_\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(env).toEqual({ CHANGELOG_TOKEN_APP: 'demo-token', CHANGELOG_TOKEN_API: 'demo-api-token' });
    await writeFile(join(dir, 'changelog.config.json'), config!);
    const pulled = await runCli(['pull'], { cwd: dir, env: { CHANGELOG_BASE_URL: url, ...env } });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toContain('[app] ');
    expect(await readdir(join(dir, 'content/app/entries'))).toHaveLength(20);
    expect((await readdir(join(dir, 'content/api/entries'))).sort()).toEqual([
      '2025-10-01-hello-lumen.md',
      '2026-02-05-python-sdk.md',
      '2026-04-28-webhook-signature-fix.md',
      '2026-06-10-v1-deprecation.md',
      '2026-09-22-rate-limit-headers.md',
      '2026-11-18-batch-events.md',
      expect.stringMatching(/^\d{4}-\d{2}-\d{2}-api-v3-preview\.md$/),
    ]);
  });

  it('a seed whose workspaces have a key each but one: refused, naming the field', async () => {
    const seed = join(dir, 'seed.json');
    await writeFile(seed, JSON.stringify({ workspaces: [{ key: 'app', name: 'A', tokens: ['a'] }, { name: 'B', tokens: ['b'] }] }));
    const r = await runCli(['emulator', '--port', '0', '--seed', seed], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('workspaces: give every workspace a key of its own, or none a key');
  });

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
