// CLI conventions through the built CLI as a child process: --help with examples for every
// command, --version, --json, exit codes, and the GitHub Actions outputs.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/core/config.js';
import { parseEntryFile } from '../../src/entry/entry-file.js';
import { runCli, tempDir, useTempDir } from '../helpers/cli.js';
import { useDemoEmulator } from '../helpers/emulator.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMMANDS = ['sync', 'pull', 'push', 'status', 'check', 'build', 'emulator', 'dev', 'new', 'init', 'latest', 'subscribers'];

describe('help and version', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('--version prints the package version', async () => {
    const r = await runCli(['--version'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('--help lists every command and the exit codes', async () => {
    const r = await runCli(['--help'], { cwd: dir });
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    expect(r.stdout).toContain('Exit codes: 0 ok, 1 error, 2 usage, 3 conflicts, 4 deferred');
  });

  it.each(COMMANDS)('%s --help shows examples', async (command) => {
    const r = await runCli([command, '--help'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: changelog-sync ${command}`);
    expect(r.stdout).toMatch(new RegExp(`Examples:\\n  \\$ changelog-sync ${command}`));
  });
});

describe('new, init, latest', () => {
  const fx = useDemoEmulator();

  it('new: a valid, correctly named entry file; refuses to overwrite (exit 2)', async () => {
    const r = await runCli(['--json', 'new', 'Faster exports: "3×"', '--date', '2026-12-01', '--tags', 'Fix,API'], { cwd: fx.dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { file: string };
    expect(out.file).toBe('content/entries/2026-12-01-faster-exports-3.md');
    const f = parseEntryFile(out.file, await readFile(join(fx.dir, out.file)));
    expect(f.data).toEqual({ title: 'Faster exports: "3×"', publish_at: '2026-12-01', is_published: true, notify_subscribers: false, tags: ['Fix', 'API'] });
    const again = await runCli(['new', 'Faster exports: "3×"', '--date', '2026-12-01'], { cwd: fx.dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('error E_USAGE: content/entries/2026-12-01-faster-exports-3.md already exists');
    const bad = await runCli(['new', 'x', '--date', '01/12/2026'], { cwd: fx.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--date must be YYYY-MM-DD');
  });

  it('init: adds config, workflows, .gitignore lines; keeps what exists; --dry-run writes nothing', async () => {
    const { dir: repo, cleanup: done } = await tempDir();
    try {
      await writeFile(join(repo, '.gitignore'), 'dist/\n_site\n');
      await mkdir(join(repo, '.github/workflows'), { recursive: true });
      await writeFile(join(repo, '.github/workflows/changelog.yml'), 'mine\n');
      const dry = await runCli(['--json', 'init', '--dry-run'], { cwd: repo });
      expect(dry.code).toBe(0);
      expect(existsSync(join(repo, 'changelog.config.json'))).toBe(false);
      const r = await runCli(['--json', 'init'], { cwd: repo });
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { created: string[]; updated: string[]; kept: string[] };
      expect(out.created.sort()).toEqual(['.github/workflows/changelog-check.yml', 'changelog.config.json', 'content/entries/.gitkeep']);
      expect(out.updated).toEqual(['.gitignore']);
      expect(out.kept).toEqual(['.github/workflows/changelog.yml']);
      expect(await readFile(join(repo, '.github/workflows/changelog.yml'), 'utf8')).toBe('mine\n');
      expect(await readFile(join(repo, '.gitignore'), 'utf8')).toBe('dist/\n_site\n# changelog-sync\nnode_modules/\n.demo/\n.changelog/lock/\n.changelog/lock.json\n.changelog/budget.json\nchangelog-sync-*.tgz\n');
      expect((JSON.parse(await readFile(join(repo, 'changelog.config.json'), 'utf8')) as { $schema: string }).$schema).toBe('./node_modules/changelog-sync/changelog.config.schema.json');
      // The written config is valid for changelog-sync itself.
      expect((await runCli(['build', '--help'], { cwd: repo })).code).toBe(0);
    } finally {
      await done();
    }
  });

  it('latest: the public endpoint with no token; E_NOT_FOUND for an unknown workspace', async () => {
    const ws = '9f0c2a4e-5b1d-4c7e-8a3f-2d6e1b0c9a57';
    const r = await runCli(['--json', 'latest', ws], { cwd: fx.dir, env: { CHANGELOG_BASE_URL: fx.emu.url } });
    expect(r.code).toBe(0);
    const latest = JSON.parse(r.stdout) as { uuid: string; title: string };
    const newest = fx.emu.store.listEntries(fx.emu.store.byIdentifier(ws)!).find((e) => e.status === 'published')!;
    expect(latest).toMatchObject({ uuid: newest.identifier, title: newest.title });
    expect(fx.emu.log.at(-1)).toMatchObject({ method: 'GET', path: `/api/entries/latest/${ws}`, status: 200 });
    const missing = await runCli(['latest', 'nope', '--base-url', fx.emu.url], { cwd: fx.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error E_NOT_FOUND');
  });

  it('--json errors are one JSON document too', async () => {
    const r = await runCli(['--json', 'pull'], { cwd: fx.dir, env: { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: 'wrong-token' } });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'E_AUTH', status: 401 } });
  });
});

describe('in GitHub Actions', () => {
  const fx = useDemoEmulator();

  it('writes a job summary, annotates bad files, masks the token, and never prints it otherwise', async () => {
    await mkdir(join(fx.dir, 'content/entries'), { recursive: true });
    await writeFile(join(fx.dir, 'content/entries/2026-11-01-bad.md'), '---\ntitle: Bad date\npublish_at: 01/11/2026\n---\nx\n');
    await writeFile(join(fx.dir, 'content/entries/2026-11-02-good.md'), '---\ntitle: A good one\npublish_at: 2026-11-02\nis_published: true\n---\nx\n');
    const summary = join(fx.dir, 'summary.md');
    const token = 'demo-token';
    const r = await runCli(['sync', '--skip-build'], {
      cwd: fx.dir,
      env: { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: token, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, CI: 'true' },
    });
    expect(r.code).toBe(5); // an invalid file
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`::add-mask::${token}`);
    expect(r.stdout).toMatch(/^::error file=content\/entries\/2026-11-01-bad\.md,line=3::.*publish_at: must be a date written YYYY-MM-DD/m);
    expect(lines.slice(1).join('\n') + r.stderr).not.toContain(token);
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('### changelog-sync sync: "Lumen"');
    expect(md).toMatch(/\| pulled \(remote entries\) \| 20 \|/);
    expect(md).toMatch(/\| pushed \(created on the service\) \| 1 \|/);
    expect(md).toMatch(/\| rejected files \| 1 \|/);
    expect(md).toMatch(/\| requests left today \| \d+ \|/);
    expect(md).toMatch(/\| site changed since the last deployed build \| yes \|/); // no build recorded yet
    expect(md).toContain('`entries/2026-11-02-good.md` →');
    expect(existsSync(join(fx.dir, '_site'))).toBe(false); // --skip-build
  });
});

describe('changelog.config.json schema', () => {
  it('the committed JSON Schema is generated from the zod schema (run `npm run schema` after changing it)', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'changelog.config.schema.json'), 'utf8'))).toEqual(configJsonSchema());
  });
  it("the project's own config file references it", () => {
    expect((JSON.parse(readFileSync(join(ROOT, 'changelog.config.json'), 'utf8')) as { $schema: string }).$schema).toBe('./changelog.config.schema.json');
  });
});
