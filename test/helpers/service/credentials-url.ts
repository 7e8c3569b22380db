// A base URL with credentials in it: the demo workspace in an emulator, whose URL
// carries a user name and a password, and the check that no output shows either. For the
// tests of the refusal through the real CLI (test/cli/base-url-credentials.test.ts) and by
// every command (test/e2e/workflow/base-url-credentials-every-command.test.ts).
import { afterAll, beforeAll, expect } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { loadSeed } from '../../../src/emulator/seed.js';
import { tempDir } from '../process/cli.js';

/** The user name in {@link CredentialsUrl.withCredentials}. */
export const USER = 'alice-the-user';
/** The password in {@link CredentialsUrl.withCredentials}. */
export const PASSWORD = 'hunter2-secret';

/** What {@link useCredentialsUrl} hands the tests. */
export interface CredentialsUrl {
  /** An emulator with the demo seed. */
  emu: RunningEmulator;
  /** The demo workspace's access token. */
  token: string;
  /** An empty temporary folder. */
  dir: string;
  /** The emulator's URL with {@link USER} and {@link PASSWORD} in it. */
  withCredentials: string;
}

/**
 * For the tests of the enclosing block (or file): a {@link CredentialsUrl} made before them;
 * after them, the emulator is stopped and the folder removed. Read the fields inside tests.
 */
export function useCredentialsUrl(): CredentialsUrl {
  const made = {} as CredentialsUrl;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const store = await loadSeed('demo');
    made.emu = await startEmulator({ port: 0, store });
    made.token = store.workspaces[0]!.tokens[0]!;
    ({ dir: made.dir, cleanup } = await tempDir());
    const u = new URL(made.emu.url);
    u.username = USER;
    u.password = PASSWORD;
    made.withCredentials = u.href;
  });
  afterAll(async () => {
    await made.emu.close();
    await cleanup?.();
  });
  return made;
}

/** Fails when `text` shows the user name or the password of {@link CredentialsUrl.withCredentials}. */
export function expectNoCredentials(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(USER);
}
