// Credentials in CHANGELOG_BASE_URL: refused when the configuration is loaded,
// and never printed: not in the refusal, not in "Pulling from" or --verbose lines, not in
// --json, not in the site's backlink (no build happens). Through the real CLI (`latest
// --base-url`, changelog.config.json, a value that is no URL); every command refusing it, in
// and out of GitHub Actions (fourteen CLI processes), is
// test/e2e/workflow/base-url-credentials-every-command.test.ts.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { syncCommand } from '../../src/cli/commands/sync.js';
import { runCli } from '../helpers/process/cli.js';
import { runCommand } from '../helpers/process/command.js';
import { expectNoCredentials, PASSWORD, USER, useCredentialsUrl } from '../helpers/service/credentials-url.js';

vi.setConfig({ testTimeout: 120_000 });

/** The demo workspace's emulator, and its URL with credentials. */
const service = useCredentialsUrl();

describe('a base URL with credentials', () => {
  it('in `latest --base-url` is refused the same way, and nothing is sent', async () => {
    const before = service.emu.log.length;
    const r = await runCli(['--verbose', 'latest', '00000000-0000-4000-8000-000000000000', '--base-url', service.withCredentials], { cwd: service.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: --base-url contains credentials');
    expectNoCredentials(r.stdout + r.stderr);
    expect(service.emu.log).toHaveLength(before);
  });

  it('in changelog.config.json is refused too, even when the environment overrides it', async () => {
    const project = join(service.dir, 'file-config');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'changelog.config.json'), JSON.stringify({ baseUrl: service.withCredentials }));
    for (const extra of [{}, { CHANGELOG_BASE_URL: service.emu.url }]) {
      const r = await runCli(['build'], { cwd: project, env: extra });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('error E_CONFIG: changelog.config.json: baseUrl contains credentials');
      expect(r.stderr).toContain('change that password: it is in your repository');
      expectNoCredentials(r.stdout + r.stderr);
    }
  });

  it('that is not a URL at all is refused without being shown', async () => {
    const broken = `http://${USER}:${PASSWORD}@127.0.0.1:99999999/`;
    const r = await runCli(['pull', '--verbose'], { cwd: service.dir, env: { CHANGELOG_BASE_URL: broken, CHANGELOG_TOKEN: 'x-token' } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: CHANGELOG_BASE_URL is not a URL (the value is not shown: it may hold a secret)');
    expectNoCredentials(r.stdout + r.stderr);
  });
});

describe('a base URL without credentials', () => {
  it('is printed in "Pulling from" and --verbose lines, and the build links back to it', async () => {
    const project = join(service.dir, 'plain');
    await mkdir(project, { recursive: true });
    // The sync command in the test's process, as the CLI runs it (helpers/process/command.ts).
    const r = await runCommand((config, reporter) => syncCommand(config, reporter), { cwd: project, env: { CHANGELOG_BASE_URL: service.emu.url, CHANGELOG_TOKEN: service.token }, verbose: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(service.emu.url.replace(/\/$/, ''));
    expect(r.stderr).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/entries/);
    // The demo workspace shows the backlink: the hosted page under the base URL.
    expect(await readFile(join(project, '_site/index.html'), 'utf8')).toMatch(new RegExp(`class="backlink"><a href="${service.emu.url.replace(/\/$/, '').replace(/[.]/g, '\\.')}/`));
  });
});
