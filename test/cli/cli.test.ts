// The real CLI as a child process against the real emulator over HTTP.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeed } from '../../src/emulator/seed.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli, tempDir, useTempDir } from '../helpers/cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('npm start: the demo main job', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('with no token: emulator, pull, push, build, summary, exit 0, and writes only under .demo/', async () => {
    // A git repository with the project's .gitignore, to prove `git status` stays clean.
    await cp(join(REPO, '.gitignore'), join(dir, '.gitignore'));
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['add', '.gitignore'], { cwd: dir });
    const r = await runCli(['sync'], { cwd: dir });
    expect(r.stderr).toContain('No CHANGELOG_TOKEN is set: running the DEMO against the built-in emulator');
    expect(r.code).toBe(0);
    // 19 entry pages, the index, 5 tag pages (the service's tags and the local entries') and the tag index, search, subscribe, 404.
    expect(r.stdout).toMatch(/Done: pulled 20 entries \(20 new, 0 updated\), pushed 3, 29 pages in \.demo\/_site/);
    // Why 23 entries make 19 pages, and how to look at the site.
    expect(r.stderr).toContain('19 of 23 entries are on the site; left out: 2 drafts (not published), 2 scheduled after today (on the site from their date)');
    expect(r.stderr).toContain('View the site: `npx changelog-sync dev --demo` (a live preview), or serve .demo/_site/ at http://localhost:8080/ with any static file server');
    const entries = await readdir(join(dir, '.demo/content/entries'));
    expect(entries).toHaveLength(23);
    const index = await readFile(join(dir, '.demo/_site/index.html'), 'utf8');
    expect(index).toContain('Funnel step timing'); // pushed by the demo
    // show_backlink is set in the demo workspace, but the demo has no hosted page: the
    // emulator serves none and is gone when the command ends. No link to its port.
    expect(index).not.toContain('on the hosted changelog');
    const port = /built-in emulator of the changelog service\n\(http:\/\/127\.0\.0\.1:(\d+)/.exec(r.stderr)![1]!;
    for (const file of ['index.html', 'subscribe/index.html', 'feed.xml']) expect(await readFile(join(dir, '.demo/_site', file), 'utf8'), file).not.toContain(`127.0.0.1:${port}`);
    // The service's tags of each entry are pulled (the demo's listing carries them).
    expect(index).toContain('href="/tags/fix/"');
    expect(index).toContain('Dark mode is here'); // pulled
    expect(index).not.toContain('Custom roles for workspace admins'); // a draft
    expect(index).not.toContain('Goals &amp; OKR tracking'); // scheduled in the future
    const feed = await readFile(join(dir, '.demo/_site/feed.xml'), 'utf8');
    expect(feed.match(/<entry>/g)).toHaveLength(19);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir }).toString()).toBe('A  .gitignore\n');
  });
});

describe('commands against a running emulator', () => {
  let emu: RunningEmulator;
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, store: await loadSeed('demo') });
    ({ dir, cleanup } = await tempDir());
    env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'demo-token' };
  });
  afterAll(async () => {
    await emu.close();
    await cleanup();
  });

  it('pull --json, push, build; the token never appears in output', async () => {
    const pulled = await runCli(['--json', 'pull'], { cwd: dir, env });
    expect(pulled.code).toBe(0);
    const json = JSON.parse(pulled.stdout) as { command: string; created: unknown[] };
    expect(json.command).toBe('pull');
    expect(json.created).toHaveLength(20);

    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await writeFile(join(dir, 'content/entries/2026-11-22-cli-entry.md'), '---\ntitle: From the CLI\npublish_at: 2026-11-01\nis_published: true\n---\n\nHello.\n');
    const pushed = await runCli(['push'], { cwd: dir, env });
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/Pushed 1 new entry\n {2}\+ entries\/2026-11-22-cli-entry\.md -> [0-9a-f-]{36} \(published\)/);

    const built = await runCli(['build'], { cwd: dir, env });
    expect(built.code).toBe(0);
    // 17 entry pages, 5 tag pages (the service's tags, which the demo's listing carries) and
    // the tag index, the index, search, subscribe, 404.
    expect(built.stdout).toMatch(/^Built 27 pages \(\d+ files, 17 entries searchable\)/);
    expect(await readFile(join(dir, '_site/entries/from-the-cli/index.html'), 'utf8')).toContain('data-pagefind-meta="title">From the CLI</h1>');
    for (const r of [pulled, pushed, built]) expect(r.stdout + r.stderr).not.toContain('demo-token');
  });

  it('a wrong token: one-line E_AUTH error with the fix, exit 1, token not printed', async () => {
    const { dir: other, cleanup: done } = await tempDir();
    const r = await runCli(['pull'], { cwd: other, env: { ...env, CHANGELOG_TOKEN: 'wrong-token-xyz' } });
    await done();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error E_AUTH: GET ${emu.url}/api/workspace: 401 Unauthorized`);
    expect(r.stderr).toContain('fix: check CHANGELOG_TOKEN');
    expect(r.stderr).not.toContain('wrong-token-xyz');
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack without --debug
  });

  it('a service that is not there: E_NETWORK, exit 1', async () => {
    const { dir: other, cleanup: done } = await tempDir();
    const r = await runCli(['pull'], { cwd: other, env: { CHANGELOG_BASE_URL: 'http://127.0.0.1:9', CHANGELOG_TOKEN: 't0ken' } });
    await done();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error E_NETWORK: GET http:\/\/127\.0\.0\.1:9\/api\/(workspace|entries|tags): no response \(ECONNREFUSED/);
  });

  it('usage errors exit 2', async () => {
    const r = await runCli(['pull', '--no-such-flag'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--no-such-flag'");
  });
});

describe('a reader that closes the pipe', () => {
  it('--help into a closed pipe exits 0 without an EPIPE crash', async () => {
    const child = spawn(process.execPath, [join(REPO, 'dist/cli.js'), '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the child has even loaded: its first write meets a pipe with no reader.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
