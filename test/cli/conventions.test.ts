// CLI conventions through the built CLI as a child process: --help with examples for every
// command, --version, --json, exit codes, errors in one line with their fix, the token never
// printed, a closed pipe, and the GitHub Actions outputs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/core/config.js';
import { loadSeed } from '../../src/emulator/seed.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli, tempDir, useTempDir } from '../helpers/process/cli.js';
import { distModules } from '../helpers/process/import-graph.js';
import { useDemoEmulator } from '../helpers/service/emulator.js';

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

describe('what a command loads', () => {
  // Commands are imported when they run (src/cli.ts), and a command loads the site build
  // only when it builds: a CLI process's start is mostly module loading.
  it('the CLI itself (--help, --version) loads no command and no part of the site', () => {
    const modules = distModules('cli.js', { dynamic: false });
    expect(modules.length).toBeGreaterThan(5);
    expect(modules.filter((m) => m.startsWith('cli/commands/') || m.startsWith('site/'))).toEqual([]);
  });

  it('sync loads the site build only when it builds (not with --skip-build)', () => {
    const loaded = distModules('cli/commands/sync.js', { dynamic: false });
    const reachable = distModules('cli/commands/sync.js', { dynamic: true });
    expect(loaded.filter((m) => m.startsWith('site/pipeline/build'))).toEqual(['site/pipeline/build-inputs.js']);
    expect(reachable).toContain('site/pipeline/build-project.js');
  });

  it('dev loads Eleventy and its server only once its options are good (a refusal comes at once)', () => {
    expect(distModules('cli/commands/dev.js', { dynamic: false })).not.toContain('site/dev/serve.js');
    expect(distModules('cli/commands/dev.js', { dynamic: true })).toContain('site/dev/serve.js');
  });

  it('sync and dev load the emulator only for the demo', () => {
    for (const command of ['sync', 'dev']) {
      expect(distModules(`cli/commands/${command}.js`, { dynamic: false }).filter((m) => m.startsWith('emulator/')), command).toEqual([]);
      expect(distModules(`cli/commands/${command}.js`, { dynamic: true }), command).toContain('emulator/server.js');
    }
  });
});

describe('--json errors', () => {
  const fx = useDemoEmulator();

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
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the child has even loaded: its first write meets a pipe with no reader.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
