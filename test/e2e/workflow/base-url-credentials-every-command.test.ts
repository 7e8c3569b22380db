// Credentials in CHANGELOG_BASE_URL are refused when the configuration is loaded,
// by every command (pull, sync, push, build, status, --json, dev), in and out of GitHub
// Actions: fourteen real CLI processes, each naming the URL without them, printing no
// credential and sending nothing. The refusal's other cases (latest --base-url,
// changelog.config.json, a value that is no URL, a plain URL printed) are
// test/cli/base-url-credentials.test.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../helpers/process/cli.js';
import { expectNoCredentials, useCredentialsUrl } from '../../helpers/service/credentials-url.js';

vi.setConfig({ testTimeout: 120_000 });

/** The demo workspace's emulator, and its URL with credentials. */
const service = useCredentialsUrl();

describe('a base URL with credentials', () => {
  it('is refused by every command at config load, shown without them, and nothing is sent', async () => {
    const env = { CHANGELOG_BASE_URL: service.withCredentials, CHANGELOG_TOKEN: service.token };
    const stripped = new URL(service.emu.url).href;
    for (const args of [['pull', '--verbose'], ['sync', '--verbose'], ['push', '--verbose'], ['build'], ['status'], ['pull', '--json'], ['dev', '--port', '0']]) {
      for (const actions of [{}, { GITHUB_ACTIONS: 'true' }]) {
        const r = await runCli(args, { cwd: service.dir, env: { ...env, ...actions } });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toContain(`error E_CONFIG: CHANGELOG_BASE_URL contains credentials (a user name or password before "@"): refused, so that they are never printed or published; without them it is ${stripped}`);
        expect(r.stderr).toContain('fix: remove them from the URL and put the workspace access token in CHANGELOG_TOKEN');
        expectNoCredentials(r.stdout + r.stderr);
      }
    }
    expect(service.emu.log).toHaveLength(0);
    expect(existsSync(join(service.dir, '_site'))).toBe(false);
    expect(existsSync(join(service.dir, 'content'))).toBe(false);
  });
});
