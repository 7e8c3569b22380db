// Shared by the crash tests of `sync` (test/e2e/sync/kill-matrix, pull-killed-mid-rename,
// test/e2e/workflow/commit-back-lost-twice) and the tests of recovery and sync's exit code:
// a workspace of remote entries seeded once and copied into a fresh emulator per case, writer's files, the
// real CLI run with a failpoint (or a command run in the test's process when no process is
// killed, helpers/process/command.ts), and the invariant checked at the end
// (docs/sync.md#the-invariant): each file at most one remote entry, each remote entry in at
// most one file, nothing a writer wrote lost.
import { cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, entryResource, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import type { RemoteEntry } from '../../../src/service/schemas.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { renderMirrorFile } from '../../../src/sync/pull/mirror-writer.js';
import { syncedOf } from '../../../src/sync/pull/mirror-reader.js';
import type { Config } from '../../../src/core/config.js';
import type { Reporter } from '../../../src/cli/output/reporter.js';
import { runCli, type CliResult } from '../process/cli.js';
import { runCommand } from '../process/command.js';
import { withoutAddedLines } from './entries.js';

const TOKEN = 'world-token';
const WORKSPACE_ID = '5f0c1d52-7d7e-4e0a-9a3c-0a1b2c3d4e5f';

/** A base store with `n` published remote entries (one shared seed; copied per case by {@link cloneStore}). */
export function seedStore(n: number): EmulatorStore {
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ identifier: WORKSPACE_ID, name: 'Crash World', tokens: [TOKEN] });
  for (let i = 1; i <= n; i++) {
    const day = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    store.insertEntry(ws, {
      identifier: `remote-${String(i).padStart(4, '0')}`,
      title: `Remote change ${i}`,
      slug: `remote-change-${i}`,
      publish_at: day,
      content: `<p>Remote <strong>${i}</strong> &amp; more.</p><ul><li>one</li><li>two</li></ul>`,
    });
  }
  return store;
}

/** A copy of a store's single workspace (entries deep-copied). */
function cloneStore(base: EmulatorStore): EmulatorStore {
  const store = new EmulatorStore();
  const from = base.workspaces[0]!;
  const ws = store.addWorkspace({ ...from.info, tokens: [...from.tokens] });
  for (const e of base.listEntries(from).reverse()) store.insertEntry(ws, structuredClone(e));
  return store;
}

/** One case's world: an emulator over a copy of the store, and a project directory. */
export interface World {
  emu: RunningEmulator;
  store: EmulatorStore;
  ws: EmulatorWorkspace;
  dir: string;
  contentDir: string;
  env: Record<string, string>;
  /** Runs the real CLI in the project, optionally with `CHANGELOG_FAILPOINT` and more environment. */
  cli(args: string[], failpoint?: string, extraEnv?: Record<string, string>): Promise<CliResult>;
  /** Runs a command function in this process as the CLI runs it in the project (`json`: `--json`). */
  run(body: (config: Config, reporter: Reporter) => Promise<number>, options?: { json?: boolean }): Promise<CliResult>;
  close(): Promise<void>;
}

/**
 * Starts an emulator over a copy of `base` (limits compressed: a minute of 1 s) and copies
 * `project` (a directory with `content/` and `.changelog/`) into `dir`.
 */
export async function startWorld(base: EmulatorStore, dir: string, project?: string): Promise<World> {
  const store = cloneStore(base);
  const ws = store.workspaces[0]!;
  const emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000, perDay: 1_000_000 } });
  await mkdir(dir, { recursive: true });
  if (project) await cp(project, dir, { recursive: true });
  const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: TOKEN, CHANGELOG_RATE_WINDOW_MS: '100', CHANGELOG_TIMEOUT_MS: '500' };
  return {
    emu,
    store,
    ws,
    dir,
    contentDir: join(dir, 'content'),
    env,
    cli: (args, failpoint, extraEnv = {}) => runCli(args, { cwd: dir, env: { ...env, ...(failpoint ? { CHANGELOG_FAILPOINT: failpoint } : {}), ...extraEnv }, timeoutMs: 120_000 }),
    run: (body, options = {}) => runCommand(body, { cwd: dir, env, json: options.json }),
    close: () => emu.close(),
  };
}

/**
 * Writes `n` new writer's files into `contentDir/entries/`: every fifth with an explicit
 * slug, every seventh titled "Weekly fixes" (derived slugs, told apart by date), the rest
 * with derived slugs. @returns their texts by path.
 */
export async function writeWriterFiles(contentDir: string, n: number): Promise<Map<string, string>> {
  await mkdir(join(contentDir, 'entries'), { recursive: true });
  const texts = new Map<string, string>();
  for (let i = 1; i <= n; i++) {
    const day = new Date(Date.UTC(2026, 2, 1) + i * 86_400_000).toISOString().slice(0, 10);
    const title = i % 7 === 0 ? 'Weekly fixes' : `New export API ${i}: "quoted" & more`;
    const slug = i % 5 === 0 ? `slug: writer-explicit-${i}\n` : '';
    const text = `---\ntitle: ${JSON.stringify(title)}\n${slug}publish_at: ${day}\nis_published: ${i % 3 !== 0}\ntags: [Writer]\nowner: team-${i % 4}\n---\n\nWriter's entry **${i}**.\n\n| a | b |\n|---|---|\n| ${i} | x |\n`;
    const rel = `entries/${day}-writer-${i}.md`;
    await writeFile(join(contentDir, rel), text);
    texts.set(rel, text);
  }
  return texts;
}

/**
 * The invariant: `expected` remote entries, as many entry files, each with one identifier
 * of its own, the identifiers those of the remote entries, no title and date twice on the
 * service, and each writer's file byte-identical but for the lines push adds.
 */
export async function expectInvariant(world: Pick<World, 'store' | 'ws' | 'contentDir'>, expected: number, writers: Map<string, string>): Promise<void> {
  const remote = world.store.listEntries(world.ws);
  const keys = remote.map((e) => `${e.title} @ ${e.publish_at.slice(0, 10)}`);
  expect(new Set(keys).size, `duplicates on the service: ${keys.filter((k, i) => keys.indexOf(k) !== i).join(' | ')}`).toBe(keys.length);
  expect(remote).toHaveLength(expected);
  const files = await readEntryFiles(world.contentDir);
  const ids = new Map<string, string[]>();
  for (const [rel, { parsed }] of files) {
    const id = parsed.data.identifier;
    expect(id, `${rel} has no identifier`).toBeTruthy();
    ids.set(id!, [...(ids.get(id!) ?? []), rel]);
  }
  const twice = [...ids].filter(([, names]) => names.length > 1);
  expect(twice, 'identifiers in two files').toEqual([]);
  expect([...files.keys()]).toHaveLength(expected);
  expect([...ids.keys()].sort()).toEqual(remote.map((e) => e.identifier).sort());
  for (const [rel, original] of writers) {
    const file = files.get(rel);
    expect(file, `${rel} is gone`).toBeDefined();
    expect(withoutAddedLines(file!.text, original), `${rel} changed`).toBe(original);
    const mine = remote.find((e) => e.identifier === file!.parsed.data.identifier)!;
    expect(mine.title, rel).toBe(file!.parsed.data.title);
    expect(mine.slug, rel).toBe(file!.parsed.data.slug);
  }
  await expectMirrorCurrent(world, files, writers);
}

/** An entry file's text and what parseEntryFile makes of it. */
interface EntryFileRead {
  text: string;
  parsed: ReturnType<typeof parseEntryFile>;
}

/** The entry files of `contentDir/entries/`, by path (`entries/x.md`): text and parse, each read once. */
async function readEntryFiles(contentDir: string): Promise<Map<string, EntryFileRead>> {
  const files = new Map<string, EntryFileRead>();
  for (const name of (await readdir(join(contentDir, 'entries'))).filter((n) => n.endsWith('.md'))) {
    const rel = `entries/${name}`;
    const text = await readFile(join(contentDir, rel), 'utf8');
    files.set(rel, { text, parsed: parseEntryFile(rel, text) });
  }
  return files;
}

/**
 * Every mirror file (not a writer's) holds what pull writes for its remote entry today, and
 * no conflict copy waits in `.changelog/conflicts/` (parked duplicates aside): nothing
 * stale adopted, no false conflict left by a killed run.
 */
async function expectMirrorCurrent(world: Pick<World, 'store' | 'ws' | 'contentDir'>, files: Map<string, EntryFileRead>, writers: Map<string, string>): Promise<void> {
  const byId = new Map(world.store.listEntries(world.ws).map((e) => [e.identifier, e]));
  const stale: string[] = [];
  for (const [rel, { parsed }] of files) {
    if (writers.has(rel)) continue;
    const entry = byId.get(parsed.data.identifier!);
    if (!entry || renderMirrorFile(entryResource(entry) as unknown as RemoteEntry).synced !== syncedOf(parsed)) stale.push(rel);
  }
  expect(stale, 'mirror files that are not the remote entry of today').toEqual([]);
  const conflicts = await readdir(join(world.contentDir, '..', '.changelog', 'conflicts')).catch(() => [] as string[]);
  expect(conflicts.filter((n) => !n.startsWith('duplicate-')), 'conflict copies').toEqual([]);
}
