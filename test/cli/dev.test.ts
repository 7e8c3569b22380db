// `changelog-sync dev` as a writer runs it: against the emulator (no token), a new file
// appears on the dev server, an invalid file is reported with file and line, and on the page.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers/cli.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, body: await res.body.text() };
}

describe('changelog-sync dev', () => {
  let child: ChildProcess;
  let dir: string;
  let cleanup: () => Promise<void>;
  let stdout = '';
  let stderr = '';
  let url: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    // A team's partial override: only the footer, over the packaged templates.
    await mkdir(join(dir, 'site/_includes'), { recursive: true });
    // It keeps the show_backlink link (the demo workspace sets show_backlink), as the packaged footer does.
    await writeFile(
      join(dir, 'site/_includes/footer.njk'),
      '<footer class="site-footer">Team footer v1{% if site.showBacklink and site.backlinkUrl %} <a class="backlink" href="{{ site.backlinkUrl }}">hosted</a>{% endif %}</footer>\n',
    );
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_')) delete env[k];
    child = spawn(process.execPath, [CLI, 'dev', '--port', String(port)], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    url = await waitFor('the dev server', async () => /Serving the changelog at (\S+)/.exec(stdout)?.[1], 60_000);
  }, 90_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await cleanup();
  });

  it('serves the demo mirror pulled from the emulator', async () => {
    expect(stderr).toContain('No CHANGELOG_TOKEN is set: previewing the DEMO');
    const index = await get(url);
    expect(index.status).toBe(200);
    expect(index.body).toContain('Dark mode is here');
    // show_backlink: the link to the workspace's page on the service (the demo's emulator), as a build makes it.
    expect(index.body).toMatch(/<a class="backlink" href="http:\/\/(127\.0\.0\.1|localhost):\d+\/[A-Za-z0-9_-]+">hosted<\/a>/);
  });

  it("lays the team's site/ over the packaged templates, reloads its edits, and indexes search", async () => {
    const index = await get(url);
    expect(index.body).toContain('Team footer v1');
    expect(index.body).toContain('Dark mode is here'); // the packaged index page still renders
    await writeFile(join(dir, 'site/_includes/footer.njk'), '<footer class="site-footer">Team footer v2</footer>\n');
    await waitFor('the edited footer', async () => ((await get(url)).body.includes('Team footer v2') ? true : undefined));
    const search = await waitFor('the search index', async () => {
      const r = await get(new URL('/pagefind/pagefind.js', url).href);
      return r.status === 200 ? r : undefined;
    });
    expect(search.body.length).toBeGreaterThan(1000);
  });

  it('a new entry file appears on the dev server after save', async () => {
    await writeFile(join(dir, '.demo/content/entries/2026-11-01-written-live.md'), '---\ntitle: Written live\npublish_at: 2026-11-01\nis_published: true\n---\n\nSaved a moment ago.\n');
    const page = await waitFor('the new page', async () => {
      const r = await get(new URL('/entries/written-live/', url).href);
      return r.status === 200 ? r.body : undefined;
    });
    expect(page).toContain('Written live');
    expect(page).toContain('Saved a moment ago.');
    await waitFor('the ok line', async () => (stderr.includes('ok: .demo/content/entries/2026-11-01-written-live.md') ? true : undefined));
  });

  it('an invalid file is reported with file and line, and shown on the page', async () => {
    await writeFile(join(dir, '.demo/content/entries/2026-11-02-broken.md'), '---\ntitle: Broken\npublish_at: 02/11/2026\n---\nx\n');
    await waitFor('the error line', async () => (stderr.includes('.demo/content/entries/2026-11-02-broken.md:3: publish_at: must be a date written YYYY-MM-DD') ? true : undefined));
    const banner = await waitFor('the banner', async () => {
      const r = await get(url);
      return r.body.includes('id="changelog-sync-problems"') ? r.body : undefined;
    });
    expect(banner).toContain('entries/2026-11-02-broken.md:3');
  });

  it('never pushes on its own: local entries keep no identifier', async () => {
    for (const f of ['2026-11-20-funnel-step-timing.md', '2026-11-01-written-live.md']) {
      const text = await readFile(join(dir, '.demo/content/entries', f), 'utf8');
      expect(text).toContain('title:');
      expect(text).not.toMatch(/^identifier:/m);
    }
  });
});
