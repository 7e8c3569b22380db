// Credentials in CHANGELOG_BASE_URL (issue 13) are refused when the configuration is loaded,
// by every command (pull, sync, push, build, status, --json, dev), in and out of GitHub
// Actions: fourteen real CLI processes, each naming the URL without them, printing no
// credential and sending nothing. The refusal's other cases (latest --base-url,
// changelog.config.json, a value that is no URL, a plain URL printed) are
// test/cli/base-url-credentials.test.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { loadSeed } from '../../src/emulator/seed.js';
import { runCli, tempDir } from '../helpers/cli.js';

vi.setConfig({ testTimeout: 120_000 });

const USER = 'alice-the-user';
const PASSWORD = 'hunter2-secret';

let emu: RunningEmulator;
let dir: string;
let cleanup: () => Promise<void>;
let withCredentials: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, store: await loadSeed('demo') });
  ({ dir, cleanup } = await tempDir());
  const u = new URL(emu.url);
  u.username = USER;
  u.password = PASSWORD;
  withCredentials = u.href;
});
afterAll(async () => {
  await emu.close();
  await cleanup();
});

const expectNoCredentials = (text: string) => {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(USER);
};

describe('a base URL with credentials', () => {
  it('is refused by every command at config load, shown without them, and nothing is sent', async () => {
    const token = (await loadSeed('demo')).workspaces[0]!.tokens[0]!;
    const env = { CHANGELOG_BASE_URL: withCredentials, CHANGELOG_TOKEN: token };
    const stripped = new URL(emu.url).href;
    for (const args of [['pull', '--verbose'], ['sync', '--verbose'], ['push', '--verbose'], ['build'], ['status'], ['pull', '--json'], ['dev', '--port', '0']]) {
      for (const actions of [{}, { GITHUB_ACTIONS: 'true' }]) {
        const r = await runCli(args, { cwd: dir, env: { ...env, ...actions } });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toContain(`error E_CONFIG: CHANGELOG_BASE_URL contains credentials (a user name or password before "@"): refused, so that they are never printed or published; without them it is ${stripped}`);
        expect(r.stderr).toContain('fix: remove them from the URL and put the workspace access token in CHANGELOG_TOKEN');
        expectNoCredentials(r.stdout + r.stderr);
      }
    }
    expect(emu.log).toHaveLength(0);
    expect(existsSync(join(dir, '_site'))).toBe(false);
    expect(existsSync(join(dir, 'content'))).toBe(false);
  });
});
