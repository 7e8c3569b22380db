// The kill matrix over a two-workspace sync (docs/sync.md "Several workspaces"): `sync
// --skip-build` of 5 new writer's files in each of two workspaces (20 remote entries each,
// mirrored before), killed with SIGKILL at a failpoint in the first workspace's run or in the
// second's (a failpoint's pass count goes on across workspaces: `push:after-post:7` is the second
// workspace's 2nd POST), then resumed by one `sync --skip-build`: in each workspace exactly its
// remote entries and its writer's files, one identifier per file, nothing created twice or in the
// other workspace (test/helpers/sync/sync-world.ts' invariant, per workspace).
//
// The real CLI against one emulator serving both workspaces over HTTP; each case gets a copy of
// the seeded store and of the mirrored project.
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { runCli, tempDir } from '../../helpers/process/cli.js';
import { expectInvariant, writeWriterFiles } from '../../helpers/sync/sync-world.js';

const REMOTE = 20;
const FILES = 5;
const KEYS = ['app', 'api'] as const;
const TOKENS = { CHANGELOG_TOKEN_APP: 'app-token', CHANGELOG_TOKEN_API: 'api-token' };

/** A store with the two workspaces, each with `REMOTE` published entries (or a deep copy of `from`'s). */
function seeded(from?: EmulatorStore): EmulatorStore {
  const store = new EmulatorStore();
  for (const [i, key] of KEYS.entries()) {
    const old = from?.workspaces[i];
    const ws = store.addWorkspace(old ? { ...old.info, tokens: [...old.tokens] } : { name: `Lumen ${key}`, tokens: [TOKENS[key === 'app' ? 'CHANGELOG_TOKEN_APP' : 'CHANGELOG_TOKEN_API']] });
    if (old) for (const e of from.listEntries(old).reverse()) store.insertEntry(ws, structuredClone(e));
    else {
      for (let n = 1; n <= REMOTE; n++) {
        const day = new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
        store.insertEntry(ws, { identifier: `${key}-${String(n).padStart(4, '0')}`, title: `${key} change ${n}`, slug: `${key}-change-${n}`, publish_at: day, content: `<p>${key} <strong>${n}</strong></p>` });
      }
    }
  }
  return store;
}

/** Runs the CLI in `dir` against the emulator at `url` (the top-level base URL both workspaces fall back to; limits compressed). */
function cli(dir: string, url: string, args: string[], failpoint?: string) {
  return runCli(args, { cwd: dir, env: { ...TOKENS, CHANGELOG_BASE_URL: url, CHANGELOG_RATE_WINDOW_MS: '100', CHANGELOG_TIMEOUT_MS: '500', ...(failpoint && { CHANGELOG_FAILPOINT: failpoint }) }, timeoutMs: 120_000 });
}

describe('a two-workspace sync killed at a failpoint and resumed: no duplicate', () => {
  let root = '';
  let cleanup: () => Promise<void>;
  let base: EmulatorStore;
  let project = '';
  const writers = new Map<string, Map<string, string>>();

  beforeAll(async () => {
    ({ dir: root, cleanup } = await tempDir('changelog-sync-workspaces-kill-'));
    base = seeded();
    project = join(root, 'project');
    const emu = await startEmulator({ port: 0, store: seeded(base), limits: { perMinute: 600, windowMs: 1000, perDay: 1_000_000 } });
    try {
      await mkdir(project, { recursive: true });
      await writeFile(join(project, 'changelog.config.json'), JSON.stringify({ workspaces: { app: { tokenEnv: 'CHANGELOG_TOKEN_APP' }, api: { tokenEnv: 'CHANGELOG_TOKEN_API' } } }));
      const pulled = await cli(project, emu.url, ['pull']);
      expect(pulled.code, pulled.stderr).toBe(0);
    } finally {
      await emu.close();
    }
    for (const key of KEYS) writers.set(key, await writeWriterFiles(join(project, 'content', key), FILES));
  }, 120_000);
  afterAll(() => cleanup?.());

  it.each([
    ['push:after-post:2', 'app'],
    ['push:after-post:7', 'api'],
    ['write-back:tmp-created:6', 'api'],
    ['pull:before-state-save:2', 'api'],
    ['journal:before-flush:3', 'app'],
  ])('killed at %s (in %s), resumed', async (failpoint, where) => {
    const dir = join(root, failpoint.replace(/[^a-z0-9-]/g, '_'));
    await cp(project, dir, { recursive: true });
    const store = seeded(base);
    const emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000, perDay: 1_000_000 } });
    const run = (args: string[], fp?: string) => cli(dir, emu.url, args, fp);
    try {
      const killed = await run(['sync', '--skip-build'], failpoint);
      expect(killed.signal, `${failpoint} was not reached:\n${killed.stdout}\n${killed.stderr}`).toBe('SIGKILL');
      // Killed in the workspace the case names: the last line it wrote is that workspace's.
      expect([...killed.stderr.matchAll(/^\[(app|api)\] /gm)].at(-1)?.[1], killed.stderr).toBe(where);
      const resumed = await run(['sync', '--skip-build']);
      expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      for (const [i, key] of KEYS.entries()) {
        const ws: EmulatorWorkspace = store.workspaces[i]!;
        await expectInvariant({ store, ws, contentDir: join(dir, 'content', key) }, REMOTE + FILES, writers.get(key)!);
      }
    } finally {
      await emu.close();
    }
  }, 180_000);
});
