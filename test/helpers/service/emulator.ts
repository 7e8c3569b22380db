import { afterAll, beforeAll } from 'vitest';
import { loadSeed } from '../../../src/emulator/seed.js';
import { tempDir } from '../process/cli.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { ChangelogClient, type ClientOptions } from '../../../src/service/client.js';
import { RateBudget } from '../../../src/service/rate-budget.js';

/** A running emulator with one workspace (token `test-token`) and a client for it. */
export interface EmulatorFixture {
  emu: RunningEmulator;
  ws: EmulatorWorkspace;
  store: EmulatorStore;
  token: string;
  client(options?: Partial<ClientOptions>): ChangelogClient;
  close(): Promise<void>;
}

/** Starts an emulator on port 0 with one workspace; extra options go to startEmulator. */
export async function emulatorFixture(options: EmulatorOptions & { workspaceName?: string } = {}): Promise<EmulatorFixture> {
  const store = options.store ?? new EmulatorStore(options.now);
  const ws = store.workspaces[0] ?? store.addWorkspace({ name: options.workspaceName ?? 'Test Workspace', tokens: ['test-token'] });
  const emu = await startEmulator({ ...options, store, port: 0 });
  const clients: ChangelogClient[] = [];
  return {
    emu,
    ws,
    store,
    token: ws.tokens[0]!,
    client(o = {}) {
      const c = new ChangelogClient({
        baseUrl: emu.url,
        token: ws.tokens[0]!,
        budget: new RateBudget({ windowMs: options.limits?.windowMs ?? 60_000, perMinute: options.limits?.perMinute ?? 60, perDay: options.limits?.perDay ?? 1440 }),
        backoffMs: 5,
        ...o,
      });
      clients.push(c);
      return c;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await emu.close();
    },
  };
}

/**
 * For a describe block: the demo seed in a running emulator and an empty temporary
 * directory, started before its tests and removed after them. Read the fields inside tests.
 */
export function useDemoEmulator(): { emu: RunningEmulator; dir: string } {
  const ctx = {} as { emu: RunningEmulator; dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    ctx.emu = await startEmulator({ port: 0, store: await loadSeed('demo') });
    ({ dir: ctx.dir, cleanup: ctx.cleanup } = await tempDir());
  });
  afterAll(async () => {
    await ctx.emu.close();
    await ctx.cleanup();
  });
  return ctx;
}

/**
 * For a describe block: an {@link emulatorFixture} and the environment that points the
 * real CLI at it, started before its tests and closed after them. Read the fields inside tests.
 */
export function useEmulatorFixture(options: EmulatorOptions = {}): { fx: EmulatorFixture; env: Record<string, string> } {
  const ctx = {} as { fx: EmulatorFixture; env: Record<string, string> };
  beforeAll(async () => {
    ctx.fx = await emulatorFixture(options);
    ctx.env = { CHANGELOG_BASE_URL: ctx.fx.emu.url, CHANGELOG_TOKEN: ctx.fx.token };
  });
  afterAll(async () => ctx.fx.close());
  return ctx;
}
