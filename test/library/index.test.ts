// The package entry (`import ... from 'changelog-sync'`): the compiled dist/index.js that
// package.json's `exports` names, called as a program would, against the real emulator
// over HTTP on port 0: pull into an empty directory, push a new file, status, build; a push
// whose origin cannot be read, refused, and with `noLease`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { build, ChangelogSyncError, isErrorCode, loadSeed, pull, push, startEmulator, status, type RunningEmulator } from '../../dist/index.js';
import { tempDir } from '../helpers/process/cli.js';
import { distModules } from '../helpers/process/import-graph.js';

// A pull converts 20 entries and a build runs Eleventy and Pagefind, on two shared cores.
vi.setConfig({ testTimeout: 120_000 });

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'demo-token';

let emu: RunningEmulator;
let dir: string;
let cleanup: () => Promise<void>;
// No CHANGELOG_* variable of the machine running the tests reaches the project.
const project = () => ({ root: dir, env: {}, baseUrl: emu.url, token: TOKEN });

beforeAll(async () => {
  emu = await startEmulator({ port: 0, store: await loadSeed('demo') });
  ({ dir, cleanup } = await tempDir());
});
afterAll(async () => {
  await emu.close();
  await cleanup();
});

describe('package.json', () => {
  it('`exports` names dist/index.js and its types, and both exist after the build', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }>; bin: Record<string, string> };
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(pkg.bin['changelog-sync']).toBe('dist/cli.js');
    for (const f of [pkg.exports['.']!.types, pkg.exports['.']!.import]) expect(existsSync(join(ROOT, f)), f).toBe(true);
  });
});

describe('the library below the CLI', () => {
  it('dist/index.js loads no module of dist/cli/, statically or by dynamic import', () => {
    const modules = distModules('index.js', { dynamic: true });
    expect(modules.length).toBeGreaterThan(20);
    expect(modules.filter((m) => m.startsWith('cli/') || m === 'cli.js')).toEqual([]);
  });
});

describe('the programmatic API against the emulator', () => {
  it('pull mirrors the workspace into an empty directory, printing nothing', async () => {
    const ws = emu.store.workspaces[0]!;
    const printed: string[] = [];
    const spies = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write')].map((s) => s.mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true)));
    const result = await pull(project()).finally(() => spies.forEach((s) => s.mockRestore()));
    expect(printed).toEqual([]);
    expect(result.dryRun).toBe(false);
    expect(result.workspace).toEqual({ identifier: ws.info.identifier, name: 'Lumen' });
    expect(result.remote).toBe(ws.entries.length);
    expect(result.created).toHaveLength(ws.entries.length);
    expect(result.conflicts).toEqual([]);
    for (const item of result.created) {
      const text = await readFile(join(dir, 'content', item.file), 'utf8');
      expect(text).toContain(`identifier: ${item.identifier}`);
    }
    expect(JSON.parse(await readFile(join(dir, 'content/_data/workspace.json'), 'utf8'))).toMatchObject({ identifier: ws.info.identifier, name: 'Lumen' });
  });

  it('status after the pull: nothing to pull, nothing to push; nothing sent', async () => {
    const posts = () => emu.log.filter((r) => r.method === 'POST').length;
    const before = posts();
    const result = await status(project());
    expect(result.pull.dryRun).toBe(true);
    expect(result.pull.created).toEqual([]);
    expect(result.pull.updated).toEqual([]);
    expect(result.push.plan).toEqual([]);
    expect(posts()).toBe(before);
  });

  it('push creates the entry of a new file once and writes its identifier back', async () => {
    const file = join(dir, 'content/entries/2026-11-20-api-entry.md');
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await writeFile(file, '---\ntitle: "Programmatic entry"\npublish_at: 2026-11-20\nis_published: true\n---\n\nSent by `push()` from the package entry.\n');
    const result = await push(project());
    expect(result.rejected).toEqual([]);
    expect(result.pending).toEqual([]);
    expect(result.pushed).toHaveLength(1);
    const [pushed] = result.pushed;
    expect(pushed).toMatchObject({ file: 'entries/2026-11-20-api-entry.md', slug: 'programmatic-entry', how: 'created' });
    const remote = emu.store.workspaces[0]!.entries.filter((e) => e.slug === 'programmatic-entry');
    expect(remote.map((e) => e.identifier)).toEqual([pushed!.identifier]);
    expect(remote[0]!.content).toContain('<code>push()</code>');
    expect(await readFile(file, 'utf8')).toContain(`identifier: ${pushed!.identifier}`);

    // A second push finds nothing new to send.
    const again = await push(project());
    expect(again.plan).toEqual([]);
    expect(emu.store.workspaces[0]!.entries.filter((e) => e.slug === 'programmatic-entry')).toHaveLength(1);
  });

  it('build writes the site, the pushed entry included, under the site URL\'s base path; warnings go to onWarning', async () => {
    // A theme the site does not have: the build falls back to `commit` and warns.
    const workspaceFile = join(dir, 'content/_data/workspace.json');
    await writeFile(workspaceFile, JSON.stringify({ ...(JSON.parse(await readFile(workspaceFile, 'utf8')) as object), theme: 'neon' }));
    const warnings: string[] = [];
    const result = await build({ ...project(), siteUrl: 'https://example.github.io/repo/', onWarning: (m) => warnings.push(m) });
    expect(result.warnings.some((w) => w.includes('"neon"'))).toBe(true);
    expect(warnings).toEqual(result.warnings);
    expect(result.outputDir).toBe(join(dir, '_site'));
    expect(result.unreadable).toEqual([]);
    // Search indexes the entry pages, one each; the index, tag and search pages come on top.
    const entryPages = result.files.filter((f) => /^entries\/[^/]+\/index\.html$/.test(f));
    expect(result.indexed).toBe(entryPages.length);
    expect(result.pages).toBeGreaterThan(entryPages.length);
    expect(result.files).toContain('entries/programmatic-entry/index.html');
    const page = await readFile(join(dir, '_site/entries/programmatic-entry/index.html'), 'utf8');
    expect(page).toContain('Programmatic entry');
    expect(page).toContain('href="/repo/feed.xml"');
  });

  it('errors are ChangelogSyncError with a stable code: a wrong token is E_AUTH, no token E_CONFIG', async () => {
    const wrong = await pull({ ...project(), token: 'not-the-token' }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ChangelogSyncError);
    expect(isErrorCode(wrong, 'E_AUTH')).toBe(true);
    expect((wrong as ChangelogSyncError).status).toBe(401);
    const missing = await status({ root: dir, env: {}, baseUrl: emu.url }).catch((e: unknown) => e);
    expect(isErrorCode(missing, 'E_CONFIG')).toBe(true);
    expect((missing as ChangelogSyncError).field).toBe('CHANGELOG_TOKEN');
  });
});

describe('push and the lease on origin', () => {
  it('an origin that cannot be read fails the push with E_LEASE, nothing sent; noLease pushes under the directory lock only', async () => {
    const made = await tempDir();
    try {
      const root = made.dir;
      execFileSync('git', ['init', '-q', root]);
      execFileSync('git', ['-C', root, 'remote', 'add', 'origin', join(root, 'no-such-origin.git')]);
      await mkdir(join(root, 'content/entries'), { recursive: true });
      await writeFile(join(root, 'content/entries/2026-11-21-lease-entry.md'), '---\ntitle: "Lease entry"\npublish_at: 2026-11-21\nis_published: true\n---\n\nSent by `push()` without the lease.\n');
      const posts = () => emu.log.filter((r) => r.method === 'POST').length;
      const before = posts();
      const refused = await push({ ...project(), root }).catch((e: unknown) => e);
      expect(isErrorCode(refused, 'E_LEASE')).toBe(true);
      expect((refused as ChangelogSyncError).message).toContain('the git remote "origin" cannot be read');
      expect(posts()).toBe(before);
      const result = await push({ ...project(), root, noLease: true });
      expect(result.pushed.map((p) => p.slug)).toEqual(['lease-entry']);
      expect(posts()).toBe(before + 1);
    } finally {
      await made.cleanup();
    }
  });
});
